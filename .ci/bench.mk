# The benchmark suite, its regression gate, baselines and the PGO profile
# (issue 6). Included by the Makefile; `make test` runs bench-gate
# (TEST_EXTRA).
#
#   make bench             every family beside its same-run anchors,
#                          interleaved, COUNT rounds (bench/suite.sh), into
#                          bench/out/*.txt (benchstat format) and stdout,
#                          then the verdict (bench/targets.txt; exits 1
#                          on a missed target) and the goals (bench/goals.txt)
#   make bench-report      bench/out/report.html: charts of the last
#                          `make bench` (+ per-call latency samples)
#   make bench-gate        the CI gate: base (BENCH_BASE, default HEAD~1)
#                          against the working tree, curated subset
#   make bench-gate-full   the same over every benchmark of every family
#   make bench-baseline    profiles/baseline-$(GOARCH).txt from a full run
#   make pgo-profile       regenerates profiles/orcrt-executor.pgo
#
# The gate (bench/cmd/benchgate) builds both revisions' test binaries,
# alternates their runs, and fails only on a slowdown that is both
# significant (Mann-Whitney U, p < 0.05) and larger than
# BENCH_THRESHOLD, or on any increase of allocs/op (and of B/op where it
# is deterministic). See README.md ("Benchmarks") for calibrating it.

BENCH_BASE ?= HEAD~1
BENCH_THRESHOLD ?= 10%
BENCH_GATE_COUNT ?= 10
BENCH_GATE_TIME ?= 100ms
BENCH_COUNT ?= 10
BENCH_TIME ?= 200ms
BENCH_WHOLE_N ?= 10
PGO_PROFILE := profiles/orcrt-executor.pgo

# The gated subset: every family's hot path, allocations included
# (package-relative benchmark regexps, as -bench takes them; a package
# may appear twice: a -bench pattern with more levels than a benchmark
# has does not report that benchmark). Whole llvm-jitlink runs are not
# gated (seconds per sample; `make bench` compares them with stock).
BENCH_GATE_SET := \
  ./bench/spsbench='^BenchmarkSPS$$/^op=(encode|decode)$$/^shape=(seq1000u32|bytes1MiB|finalize)$$' \
  ./bench/keepalivebench='^BenchmarkKeepalive$$/^impl=orcrt$$' \
  ./bench/membench='^BenchmarkSlab$$/^op=alloc-finalize-free$$/^size=4KiB$$/^map=single$$' \
  ./bench/membench='^BenchmarkNativeCall$$/^kind=wrapper$$' \
  ./bench/allocbench='^Benchmark(AllocActions|MemoryManager)$$/^(n=4|op=alloc-cycle)$$' \
  ./bench/rtbench='^BenchmarkWrapperCall$$/^path=loopback-borrowing$$' \
  ./bench/wirebench='^BenchmarkRoundTrip$$/^transport=pipe$$/^call=(empty|write1MiB)$$' \
  ./bench/procbench='^BenchmarkRoundTrip$$/^transport=pipe$$/^call=(empty|alloc-cycle)$$/^executor=orcrt$$'

# Gated on allocations only, their time reported: the in-process
# alloc-cycle is three mprotect calls whose cost on a VM varies by
# +-35-50% between runs (make bench), so its time failed 1 of 5 gate runs
# between two commits that do not touch its path (+13%, p=0.029) and once
# in CI (+22.7%, p=0.023). bench/procbench's alloc-cycle, whose round
# trips dominate it, is still gated on time; make bench compares both.
BENCH_GATE_ALLOCS_ONLY ?= ^allocbench:MemoryManager/op=alloc-cycle

.PHONY: bench bench-report bench-gate bench-gate-full bench-baseline pgo-profile

TEST_EXTRA += bench-gate

bench:
	COUNT=$(BENCH_COUNT) BENCHTIME=$(BENCH_TIME) WHOLE_N=$(BENCH_WHOLE_N) bench/suite.sh

bench-report:
	bench/report.sh

bench-gate:
	$(GO) run ./bench/cmd/benchgate -base $(BENCH_BASE) -threshold $(BENCH_THRESHOLD) \
	  -count $(BENCH_GATE_COUNT) -benchtime $(BENCH_GATE_TIME) -allocs-only '$(BENCH_GATE_ALLOCS_ONLY)' \
	  -out bench/out/gate $(BENCH_GATE_SET)

bench-gate-full:
	$(GO) run ./bench/cmd/benchgate -base $(BENCH_BASE) -threshold $(BENCH_THRESHOLD) \
	  -count $(BENCH_GATE_COUNT) -benchtime $(BENCH_TIME) -allocs-only '$(BENCH_GATE_ALLOCS_ONLY)' \
	  -out bench/out/gate-full \
	  ./bench/spsbench=. ./bench/keepalivebench=. ./bench/membench=. ./bench/allocbench=. \
	  ./bench/rtbench=. ./bench/wirebench=. ./bench/procbench=.

bench-baseline:
	bench/baseline.sh profiles/baseline-$$($(GO) env GOARCH).txt

pgo-profile:
	profiles/pgo.sh $(PGO_PROFILE)
