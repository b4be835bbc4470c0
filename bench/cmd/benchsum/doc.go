// Command benchsum prints the benchmark suite's summary: every target of
// bench/targets.txt with its measured figure, the same-run anchor it is
// judged against, the ratio, the limit and pass/fail.
//
// Usage:
//
//	go run ./bench/cmd/benchsum [-targets bench/targets.txt]
//	    [-tests bench/out/tests.txt] [-strict] files...
//
// files are benchmark outputs (benchstat format, read with
// golang.org/x/perf/benchfmt); `make bench` writes them to bench/out/.
// Figures are medians over all samples of a benchmark (as benchstat
// reports them); ratios are ratios of medians, with the figure's and
// anchor's 95% confidence intervals (±%) beside them so that a ratio
// near its limit can be judged. -tests names `go test -v` output in
// which targets of unit "test" must show "--- PASS". A target whose
// benchmark is missing from the input is "missing" (a failure).
// benchsum exits 1 on a failed target only with -strict (the suite's
// job is to show where orcrt stands; the regression gate is
// bench/cmd/benchgate).
package main
