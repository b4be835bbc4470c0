# The benchmark suite, its regression gate, baselines and the PGO profile
# (issue 6). Included by the Makefile; `make test` runs bench-gate
# (TEST_EXTRA).
#
#   make bench             every family beside its same-run anchors,
#                          interleaved, COUNT rounds (bench/suite.sh), into
#                          bench/out/*.txt (benchstat format) and stdout,
#                          then the verdict (bench/targets.txt; exits 1
#                          on a missed target) and the goals (bench/goals.txt)
#   make bench-instr       the verdict's instruction counts alone (cachegrind,
#                          a few minutes; ONLY=instr bench/suite.sh): the
#                          deterministic targets a code regression fails
#   make bench-report      bench/out/report.html: charts of the last
#                          `make bench` (+ per-call latency samples)
#   make bench-gate        the CI gate: base (BENCH_BASE, default HEAD~1)
#                          against the working tree, curated subset
#   make bench-gate-full   the same over every benchmark of every family
#   make bench-baseline    profiles/baseline-$(GOARCH).txt from a full run
#   make bench-instr-baseline REASON="..." [BENCH_INSTR_ARCH=amd64|arm64]
#                          profiles/instructions-{amd64,arm64}.txt, the
#                          stored instruction counts the gate holds the
#                          tree to (both, or the one named)
#   make pgo-profile       regenerates profiles/orcrt-executor.pgo
#
# The gate (bench/cmd/benchgate) builds both revisions' test binaries,
# alternates their runs, and fails on a slowdown that is both
# significant (Mann-Whitney U, p < 0.05) and larger than
# BENCH_THRESHOLD in two runs, on any increase of allocs/op (and of B/op
# where it is deterministic), and on instructions per op more than 5%
# above the base or the stored baseline: the host's under cachegrind, and
# linux/arm64's under qemu-aarch64 with the qemuinsn plugin (.ci/arm64.mk
# builds it; the arm64 root comes from make arm64-deps). See README.md
# ("Benchmarks").

BENCH_BASE ?= HEAD~1
BENCH_THRESHOLD ?= 10%
BENCH_GATE_COUNT ?= 10
BENCH_GATE_TIME ?= 100ms
BENCH_COUNT ?= 10
BENCH_TIME ?= 200ms
BENCH_WHOLE_N ?= 10
PGO_PROFILE := profiles/orcrt-executor.pgo

# The gated set lives in bench/gate.txt; the stored instruction baseline
# in profiles/instructions-$(GOARCH).txt (`make bench-instr-baseline
# REASON="..."` re-records it). Packages whose base and head builds are
# byte-identical (-trimpath, orcrt-executor and the PGO profile included)
# are not timed: there is nothing to compare.
BENCH_GATE_FILE := bench/gate.txt
# Extra benchgate flags (.ci/gate-trials.sh passes -compare-identical).
BENCH_GATE_EXTRA ?=
BENCH_GOARCH := $(shell $(GO) env GOARCH)
# The arm64 counts (instr:arm64 and exec:arm64 entries); recursive, as
# QEMUINSN and ARM64_ROOT come from .ci/arm64.mk.
BENCH_GATE_ARM64 = -arm64-baseline profiles/instructions-arm64.txt -qemu-plugin $(CURDIR)/$(QEMUINSN) -arm64-root $(ARM64_ROOT)
BENCH_GATE_COMMON = -set $(BENCH_GATE_FILE) -exe ./cmd/orcrt-executor -input $(PGO_PROFILE) \
  -instr-baseline profiles/instructions-$(BENCH_GOARCH).txt $(BENCH_GATE_ARM64)
BENCH_INSTR_ARCH ?=

.PHONY: bench bench-instr bench-report bench-gate bench-gate-full bench-baseline bench-instr-baseline pgo-profile

TEST_EXTRA += bench-gate

bench: qemuinsn arm64-deps
	COUNT=$(BENCH_COUNT) BENCHTIME=$(BENCH_TIME) WHOLE_N=$(BENCH_WHOLE_N) INSTR_FLAGS="$(BENCH_GATE_ARM64)" bench/suite.sh

bench-instr: qemuinsn arm64-deps
	ONLY=instr INSTR_FLAGS="$(BENCH_GATE_ARM64)" bench/suite.sh

bench-report:
	bench/report.sh

bench-gate: qemuinsn arm64-deps
	$(GO) run ./bench/cmd/benchgate -base $(BENCH_BASE) -threshold $(BENCH_THRESHOLD) \
	  -count $(BENCH_GATE_COUNT) -benchtime $(BENCH_GATE_TIME) $(BENCH_GATE_COMMON) $(BENCH_GATE_EXTRA) \
	  -out bench/out/gate

bench-gate-full:
	$(GO) run ./bench/cmd/benchgate -base $(BENCH_BASE) -threshold $(BENCH_THRESHOLD) \
	  -count $(BENCH_GATE_COUNT) -benchtime $(BENCH_TIME) -exe ./cmd/orcrt-executor -input $(PGO_PROFILE) \
	  -out bench/out/gate-full \
	  ./bench/spsbench=. ./bench/keepalivebench=. ./bench/membench=. ./bench/allocbench=. \
	  ./bench/rtbench=. ./bench/wirebench=. ./bench/procbench=.

bench-instr-baseline: qemuinsn arm64-deps
	@test -n "$(REASON)" || { echo 'bench-instr-baseline: say why: make bench-instr-baseline REASON="..."'; exit 1; }
	$(GO) run ./bench/cmd/benchgate $(BENCH_GATE_COMMON) -record-instr -record-arch "$(BENCH_INSTR_ARCH)" -reason "$(REASON)"

bench-baseline:
	bench/baseline.sh profiles/baseline-$$($(GO) env GOARCH).txt

pgo-profile:
	profiles/pgo.sh $(PGO_PROFILE)
