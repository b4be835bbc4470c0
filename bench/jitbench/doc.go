// Package jitbench benchmarks package jit, each figure beside its
// same-run reference:
//
//   - op=add-lookup: an LLVM IR module, an object or a 20-line C function
//     made callable (add, then look up), by package jit (impl=orcrt-jit,
//     without the ORC runtime as the reference runs; orcrt-jit-orcrt with
//     it; for C, orcrt-jit-clang-process compiles with a clang-22 process
//     instead of clang's libraries in the controller), by LLJIT inside a C++ program linking the same LLVM 22
//     (impl=lljit-inprocess, csrc/inproc.cpp: the physical floor, no IPC;
//     for C, clang-22 then LLJIT), and by one llvm-jitlink process per
//     object (impl=llvm-jitlink-spawn);
//   - kind=object1000: an object of 1,000 functions, with the
//     controller's peak RSS (peak-rss-KiB);
//   - BenchmarkJITCall: a JIT'd int64_t f(int64_t) called inside
//     Func.Batch beside the same function compiled into the binary and
//     called through cgo (the floor), and an empty cgo call;
//   - BenchmarkHostSize (ORCRT_BENCH_HOSTSIZE=1): the size and peak RSS
//     of examples/jitfilter, a Go host without LLVM, beside a Go binary
//     that links libLLVM statically.
//
// Each operation's module is removed untimed. The package has no API;
// bench/targets.txt holds the limits and RATIONALE.md ("The sidecar JIT")
// the reasons.
//
//	go test -run '^$' -bench . -count 10 ./bench/jitbench | tee new.txt
package jitbench
