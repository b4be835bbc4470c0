// Command gofloor is the start-up floor of any executor written in Go:
// a cgo program linking the libraries orcrt-executor links (libstdc++,
// libgcc_s, libm, DT_NEEDED in the same order) that does nothing else an
// executor must do. It writes the Setup message it is given, reads its
// input to end of file and exits 0.
//
// Usage (as llvm-jitlink starts an executor):
//
//	ORCRT_GOFLOOR_SETUP=FILE gofloor filedescs=IN,OUT
//
// FILE holds one whole Setup message, header included, as captured from
// orcrt-executor's output. bench/procbench starts it beside
// orcrt-executor and the stock executor (BenchmarkSession), so that the
// verdict can tell start-up and memory that orcrt adds from what the Go
// runtime costs in any program (bench/goals.txt).
package main
