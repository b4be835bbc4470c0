// Command benchgate is the benchmark regression gate: it compares a base
// revision with the working tree on the same machine, in one job, and
// exits 1 on a regression: instructions per operation above a threshold
// (against the base and against a stored baseline), a time slowdown that
// is significant and above a threshold in two runs, or more allocations.
//
// Usage (from the module root; `make bench-gate`, `make bench-gate-full`,
// `make bench-instr-baseline`):
//
//	go run ./bench/cmd/benchgate [-base HEAD~1] -set bench/gate.txt
//	    -instr-baseline profiles/instructions-amd64.txt [-arm64-baseline
//	    profiles/instructions-arm64.txt -qemu-plugin SO -arm64-root DIR]
//	    [-exe ./cmd/orcrt-executor] [-input profiles/orcrt-executor.pgo]
//	    [-threshold 10%] [-instr-threshold 5%] [-alpha 0.05] [-count 10]
//	    [-confirm 10] [-benchtime 100ms] [-cpu N] [-out DIR]
//	    [-compare-identical] [PKG=REGEXP...]
//	go run ./bench/cmd/benchgate ... -record-instr -reason WHY [-record-arch A]
//	go run ./bench/cmd/benchgate ... -measure-instr OUT
//
// The gated set (-set) lists entries "KIND[:arm64] PKGDIR REGEXP [N]"
// (bench/gate.txt explains them); PKG=REGEXP arguments add time entries.
// benchgate checks the base revision out into a temporary git worktree
// and builds both revisions' test binaries with -trimpath, so the same
// code builds to the same bytes. A package whose two test binaries, -exe
// builds and -input files are all identical is not timed (only noise
// could differ) unless -compare-identical.
//
//   - time entries: both binaries run alternately, -count rounds of one
//     run each (fixed -benchtime and -cpu; base first in odd rounds),
//     into DIR/base.txt and DIR/head.txt (benchstat format; the full
//     `go tool benchstat` table is printed). ns/op fails when head is
//     slower with p < alpha (Mann-Whitney U, golang.org/x/perf/benchmath,
//     as benchstat) and its median is more than -threshold above base's,
//     in the first run and again in -confirm more rounds of its package.
//     allocs/op: any increase fails (when a count varies, head's median
//     above base's largest sample). B/op: gated when both revisions
//     report a constant value, otherwise reported.
//   - allocs entries: the same, with ns/op reported, not gated.
//   - instr entries: one benchmark each, run under valgrind's cachegrind
//     (instr:arm64: built for linux/arm64, under qemu-aarch64 with the
//     qemuinsn plugin) with GOMAXPROCS=1, GOGC=off and GODEBUG
//     asyncpreemptoff=1 and cpu.rdtscp=off merged in, three times at N
//     and at 3N iterations; the medians' difference over 2N is its
//     instructions per operation. It fails more than -instr-threshold
//     above the base's count or the stored baseline's, when missing from
//     the baseline, and when the baseline names a benchmark of a measured
//     package no longer measured, unless its "reason:" changed. A
//     baseline recorded by another Go version fails; one recorded on
//     another CPU (its "cpu:" line) is not compared, the base still is.
//   - exec entries: the same for a whole run of a command, the median
//     of five, its input at end of file (bench/gate.txt).
//   - the set itself: a change that drops an entry of the base's set must
//     change the set's "reason:" line.
//
// A benchmark or package the base lacks is "new" and passes its base
// comparison. -record-instr writes the working tree's counts to
// -instr-baseline with -reason and the Go version; -measure-instr writes
// them to OUT (unit instructions/op) for `make bench`'s verdict.
// RATIONALE.md ("The regression gate") says why the gate is built so.
package main
