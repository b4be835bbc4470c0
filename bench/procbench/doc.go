// Package procbench measures round trips between a controller and a real
// executor process — orcrt-executor or LLVM 22's stock
// llvm-jitlink-executor — over the pipes `llvm-jitlink -oop-executor`
// uses, beside the floor of the same traffic between two processes.
//
// The controller is rt/simpleremote/wiretest (wiretest.StartExecutor
// starts a binary exactly as llvm-jitlink does: descriptors 3 and 6,
// argv [PATH, "filedescs=3,6"]). TestMain builds orcrt-executor into a
// temporary directory with `go build`, with -pgo=profiles/orcrt-executor.pgo
// when that profile exists; ORCRT_PROCBENCH_EXECUTOR names a prebuilt
// binary instead (to compare two builds, run the benchmarks once with
// each). The stock executor is /usr/lib/llvm-22/bin/llvm-jitlink-executor;
// without it the stock cases skip (fail under ORCRT_REQUIRE_LLVM=1).
//
// The benchmarks:
//
//   - BenchmarkRoundTrip/transport=pipe/call=empty/executor=E (E = orcrt
//     or stock): __llvm_orc_bootstrap_mem_write_uint8s_wrapper with an
//     empty sequence (8 argument bytes, an empty result): the cheapest
//     bootstrap call both executors have, so the time is the protocol
//     round trip itself.
//   - BenchmarkRoundTrip/transport=pipe/call=write1MiB/executor=E:
//     __llvm_orc_bootstrap_mem_write_buffers_wrapper writing 1 MiB into
//     memory reserved once with the memory manager (SetBytes 1 MiB).
//   - BenchmarkRoundTrip/transport=pipe/call=alloc-cycle/executor=E: the
//     memory manager's reserve of 32 KiB, initialize of three segments —
//     16 KiB RX, 8 KiB R, 8 KiB RW, all content written — and release:
//     three round trips, what llvm-jitlink does per linked graph with the
//     default memory manager.
//   - BenchmarkPipePingPong/size=32B|1MiB|1MiB-pipe1MiB: the floor. A
//     child process (this test binary, re-executed) reads a request of
//     that size from one pipe and answers 32 bytes on another, with
//     blocking reads and writes; the benchmark writes the request and
//     reads the answer, on pipes created the way StartExecutor creates
//     them. The traffic is that of the round trips (request, then a
//     32-byte Result header), without any protocol. 1MiB-pipe1MiB enlarges
//     the request pipe to 1 MiB first, as orcrt-executor does with its
//     input pipe: the floor at equal pipe capacity.
//   - BenchmarkSession/op=start-setup|start-setup-exit/executor=E: the
//     fixed cost of a session — process start until Setup arrives, and
//     until the process has exited after end-of-input.
//
// Targets (in the same run): call=empty ≤ 3× PipePingPong/size=32B,
// call=write1MiB ≤ 1.5× PipePingPong/size=1MiB, alloc-cycle with orcrt ≤
// 0.4× alloc-cycle with stock. sidebyside.sh runs the set round by round,
// prints orcrt beside stock with benchstat, and the targets as ratios of
// medians:
//
//	bench/procbench/sidebyside.sh            # COUNT=10 by default
//	go test -run '^$' -bench . -count 10 ./bench/procbench | tee new.txt
//	go tool benchstat -col /executor new.txt
//
// The package has no non-test code.
package procbench
