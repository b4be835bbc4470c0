// Command benchgate is the benchmark regression gate: it compares a base
// revision with the working tree on the same machine, in one job, and
// exits 1 only on a regression that is both statistically significant
// and larger than a threshold, or on any increase in allocations.
//
// Usage (from the module root; `make bench-gate` / `make bench-gate-full`):
//
//	go run ./bench/cmd/benchgate [-base HEAD~1] [-threshold 10%] [-alpha 0.05]
//	    [-count 10] [-confirm 10] [-benchtime 100ms] [-cpu N] [-out DIR] PKG=REGEXP...
//
// Each PKG=REGEXP is a package directory (./bench/spsbench) and the
// -bench expression of its gated benchmarks. benchgate checks the base
// revision out into a temporary git worktree, builds both revisions'
// test binaries (go test -c), and runs them alternately, -count rounds
// of one run each (-count=1, fixed -benchtime and -cpu; base first in
// odd rounds, head first in even ones), so that the machine's drift hits
// both alike. Both outputs (DIR/base.txt, DIR/head.txt) are benchstat
// format; the full `go tool benchstat` table is printed either way.
//
// Verdicts, per benchmark, read with golang.org/x/perf/benchfmt and
// compared with golang.org/x/perf/benchmath (AssumeNothing: medians and
// the Mann-Whitney U test, as benchstat does):
//
//   - sec/op: FAIL when head is slower with p < alpha AND its median is
//     more than -threshold above base's, in the first run and again in a
//     second one of -confirm rounds of its package (DIR/base-confirm.txt,
//     DIR/head-confirm.txt); a significant change within the threshold is
//     reported ("slower, within threshold") and passes.
//     Benchmarks matching -allocs-only have their ns/op reported, not
//     gated (figures dominated by system calls too variable for any
//     threshold); their allocations are still gated.
//   - allocs/op: gated exactly, any increase fails (when a count varies
//     between runs, an increase means head's median above base's
//     largest sample).
//   - B/op: gated exactly when both revisions report a constant value;
//     otherwise (pool reuse, GC timing) reported only.
//   - a benchmark, or a package, the base does not have is "new" and
//     passes; one the head lost is "removed" and passes.
//
// RATIONALE.md ("The regression gate") says why benchstat alone is not a
// gate.
package main
