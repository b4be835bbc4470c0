// Command benchsum prints the benchmark suite's verdict: every target of
// bench/targets.txt with its measured figure, the same-run anchor it is
// judged against, the ratio, the limit, the margin (how much the figure
// may grow before it fails) and pass/fail; then, with -goals, the goals
// of bench/goals.txt the same way, marked met or not yet, which never
// fail the verdict.
//
// Usage:
//
//	go run ./bench/cmd/benchsum [-targets bench/targets.txt]
//	    [-goals bench/goals.txt] [-tests bench/out/tests.txt]
//	    [-stored profiles/instructions-amd64.txt] [-units U,...] [-strict] files...
//
// files are benchmark outputs (benchstat format, read with
// golang.org/x/perf/benchfmt); `make bench` writes them to bench/out/.
// Figures are medians over all samples of a benchmark (as benchstat
// reports them); ratios are ratios of medians, with the figure's and
// anchor's 95% confidence intervals (±%) beside them so that a ratio
// near its limit can be judged. -tests names `go test -v` output in
// which targets of unit "test" must show "--- PASS". A target whose
// benchmark is missing from the input is "missing" (a failure).
// A target whose anchor is "stored" compares an instruction count
// (unit instructions/op, from benchgate -measure-instr) with the same
// figure in the stored baseline (-stored), which must come from the same
// Go release; -units judges only targets of the listed units (`make
// bench-instr`). With -strict (as `make bench` runs it) benchsum exits 1
// on a failed or missing target. Every target passes on a healthy tree; a figure not yet
// reachable is a goal, with its measured floor (RATIONALE.md, "Where the
// limits are"). Regressions within a limit are bench/cmd/benchgate's.
package main
