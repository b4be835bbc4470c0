// Command benchreport renders the benchmark suite's charts into an HTML
// page (`make bench-report`): keepalive cost against goroutine count, SPS
// throughput against message size beside the memmove line, and the
// per-call round-trip latency distributions of orcrt-executor and the
// stock executor, plus the summary table of the last `make bench`.
//
// Usage:
//
//	go run ./bench/cmd/benchreport [-in bench/out] [-latency FILE] [-out bench/out/report]
//
// It reads $in/keepalivebench.txt and $in/spsbench.txt (written by
// `make bench`), the latency samples of bench/procbench's
// TestLatencySamples (-latency; "executor call nanoseconds" per line)
// and $in/summary.txt, and writes $out/index.html with one SVG per chart
// beside it. Charts are drawn with gonum.org/v1/plot; this command is the
// only importer of it, so no plotting code reaches orcrt-executor.
package main
