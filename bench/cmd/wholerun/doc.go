// Command wholerun compares orcrt-executor with LLVM 22's stock
// llvm-jitlink-executor on whole runs of real programs under llvm-jitlink:
// the wall time of `llvm-jitlink -oop-executor=EXECUTOR [flags] objects`,
// from its start to its exit, and the executor's peak RSS and CPU time.
//
// Usage:
//
//	go run ./bench/cmd/wholerun [-n 10] [-programs hello,fn2000,cxx,obj51]
//	    [-memmgr default,shared] [-orcrt PATH] [-stock PATH] [-work DIR]
//	    [-extra NAME=PATH[,ENV=VALUE...]]...
//
// The executors are interleaved run by run (orcrt, stock, orcrt, stock,
// ...; n runs each per program), so that drift of a noisy machine hits
// both alike; the ratio table pairs run i of orcrt with run i of stock
// and reports the median of those ratios beside the ratio of the medians.
// -extra adds more executors to the rotation (another build, or the same
// one with environment variables, e.g. -extra base=/tmp/old-executor),
// each compared with stock the same way.
//
// Programs (compiled with clang-22 -O1 -fPIC into -work, kept between
// runs of the command):
//
//   - hello: cmd/orcrt-executor/e2e/testdata/hello.c (exit 7).
//   - fn2000: one generated C file of 2,000 functions, all called from
//     main.
//   - cxx: cmd/orcrt-executor/e2e/testdata/cxx.cpp with -orc-runtime and
//     -lstdc++ (static constructor, exception, thread_local; exit 16).
//   - obj51: 51 generated C files that call each other (51 objects, so 51
//     link graphs).
//
// Memory managers (-memmgr, the same for both executors): "default" is
// llvm-jitlink's default, "shared" -use-memmgr=shared and "simple-remote"
// -use-memmgr=simple-remote (docs/protocol.md §5.7, §6.1).
//
// llvm-jitlink does not wait for its executor, so wholerun makes itself a
// child subreaper and reaps the orphaned executor for its rusage
// (ru_maxrss is its peak RSS).
//
// Output: one line per run in Go benchmark format, readable by benchstat,
//
//	BenchmarkWholeRun/program=hello/memmgr=default/executor=orcrt 1 123456 ns/op 8123 peak-rss-KiB 3.1 exec-cpu-ms
//
// then the ratio table (orcrt/stock) with medians.
package main
