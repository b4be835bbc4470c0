// Command benchreport renders the benchmark suite's charts into an HTML
// page (`make bench-report`): keepalive cost against goroutine count, SPS
// throughput against message size beside the memmove line, and the
// per-call round-trip latency distributions of orcrt-executor and the
// stock executor, plus the summary table of the last `make bench`.
//
// Usage:
//
//	go -C bench/cmd/benchreport run . [-in DIR] [-latency FILE] [-out DIR]
//
// (bench/report.sh runs it so, with absolute paths: it is a module of its
// own, bench/cmd/benchreport/go.mod, and -C makes relative paths relative
// to that directory; the defaults, bench/out and bench/out/report, suit
// a binary run from the repository root).
//
// It reads $in/keepalivebench.txt and $in/spsbench.txt (written by
// `make bench`), the latency samples of bench/procbench's
// TestLatencySamples (-latency; "executor call nanoseconds" per line)
// and $in/summary.txt, and writes $out/index.html with one SVG per chart
// beside it. Charts are drawn with gonum.org/v1/plot; this command is the
// only importer of it, and its own module (replacing
// github.com/orcgo/orcrt with the working tree, ../../..), so neither
// orcrt-executor nor orcrt's go.mod ever sees the plotting stack.
package main
