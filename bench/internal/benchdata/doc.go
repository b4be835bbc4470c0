// Package benchdata loads Go benchmark output (read with
// golang.org/x/perf/benchfmt) into samples keyed by package, benchmark
// name and GOMAXPROCS, for the suite's tools (bench/cmd/benchsum,
// bench/cmd/benchgate, bench/cmd/benchreport). It is not safe for
// concurrent use; a Set owns everything it holds.
package benchdata
