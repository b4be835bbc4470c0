#!/usr/bin/env bash
# The benchmark suite (`make bench`): every family beside its same-run
# anchors, interleaved round by round, then the summary against
# bench/targets.txt. Run from the module root.
#
#   COUNT      rounds (samples per benchmark; default 10)
#   BENCHTIME  -benchtime of every Go benchmark (default 200ms)
#   WHOLE_N    whole llvm-jitlink runs per executor and program (default 10)
#   OUT        output directory (default bench/out)
#   ONLY       "instr": only the instruction counts and their targets
#              (`make bench-instr`, a few minutes: the verdict's
#              deterministic part, what catches a code regression)
#   GATE_FILE  the instr entries to count (default bench/gate.txt)
#   TARGETS    the verdict's targets (default bench/targets.txt)
#
# Each package's test binary is built once (go test -c) and run COUNT
# times with -count=1, one package after another in every round, so
# that a benchmark and its anchor (always in the same package) alternate
# across the run instead of one finishing before the other starts; the
# machine's drift hits both alike. Whole runs (bench/cmd/wholerun)
# interleave orcrt and stock run by run, and so does LLVM's own C++
# controller (bench/cppdriver, CPP_BENCHTIME per call, default 500ms).
# Outputs, all benchstat format: $OUT/<pkg>.txt per package,
# $OUT/wholerun.txt, $OUT/cppdriver.txt, $OUT/instr.txt (instruction
# counts), $OUT/bench.txt (all of them), $OUT/tests.txt (the tests targets reference), $OUT/summary.txt
# (the verdict and the goals). Exits non-zero when a target is missed.
set -euo pipefail
COUNT=${COUNT:-10}
BENCHTIME=${BENCHTIME:-200ms}
WHOLE_N=${WHOLE_N:-10}
OUT=${OUT:-bench/out}
GO=${GO:-go}
PKGS=(spsbench keepalivebench membench allocbench rtbench wirebench procbench jitbench)
# jitbench's HostSize links LLVM statically once per round.
export ORCRT_BENCH_HOSTSIZE=1
ONLY=${ONLY:-}
GATE_FILE=${GATE_FILE:-bench/gate.txt}
TARGETS=${TARGETS:-bench/targets.txt}
root=$(pwd)
mkdir -p "$OUT/bin"
OUT=$(cd "$OUT" && pwd)
GOARCH_=$($GO env GOARCH)

# Instructions per operation of bench/gate.txt's instr entries under
# cachegrind, judged against the stored baseline (the "stored" anchor).
instr() {
  echo "== instructions per op (cachegrind; bench/gate.txt's instr entries)" >&2
  # shellcheck disable=SC2086 # INSTR_FLAGS: the arm64 counts' flags (.ci/bench.mk)
  $GO run ./bench/cmd/benchgate -set "$GATE_FILE" -instr-baseline "profiles/instructions-$GOARCH_.txt" \
    ${INSTR_FLAGS:-} -measure-instr "$OUT/instr.txt" >&2
}
verdict() { # extra benchsum flags
  echo
  echo "== verdict: each figure against its same-run anchor or the stored baseline (bench/targets.txt; goals: bench/goals.txt)"
  # Exits 1 (and so does make bench) when a target is missed; goals never fail.
  $GO run ./bench/cmd/benchsum -strict -targets "$TARGETS" -goals bench/goals.txt \
    -stored "profiles/instructions-$GOARCH_.txt,profiles/instructions-arm64.txt" -tests "$OUT/tests.txt" "$@" "$OUT/bench.txt" | tee "$OUT/summary.txt"
}
if [ "$ONLY" = instr ]; then
  instr
  cp "$OUT/instr.txt" "$OUT/bench.txt"
  : >"$OUT/tests.txt"
  verdict -units instructions/op
  exit
fi

echo "== building test binaries" >&2
for p in "${PKGS[@]}"; do
  $GO test -c -o "$OUT/bin/$p.test" "./bench/$p"
  : >"$OUT/$p.txt"
done

# Keepalive runs at 1, 2, 4 and 8 Ps: the targets use 1 and 2, the
# report charts cost against goroutine count.
cpu_for() { [ "$1" = keepalivebench ] && echo 1,2,4,8 || echo "$(nproc)"; }

for i in $(seq 1 "$COUNT"); do
  echo "== round $i/$COUNT" >&2
  for p in "${PKGS[@]}"; do
    (cd "$root/bench/$p" && ORCRT_REQUIRE_LLVM=${ORCRT_REQUIRE_LLVM:-1} "$OUT/bin/$p.test" \
      -test.run '^$' -test.bench . -test.benchmem -test.count 1 \
      -test.benchtime "$BENCHTIME" -test.cpu "$(cpu_for "$p")") | tee -a "$OUT/$p.txt"
  done
done

echo "== whole llvm-jitlink runs (n=$WHOLE_N per executor and program)" >&2
$GO run ./bench/cmd/wholerun -n "$WHOLE_N" | tee "$OUT/wholerun.txt"

echo "== LLVM 22's C++ controller (bench/cppdriver, $COUNT rounds)" >&2
COUNT=$COUNT BENCHTIME=${CPP_BENCHTIME:-500ms} OUT="$OUT/cppdriver.txt" bench/cppdriver/run.sh >/dev/null
touch "$OUT/cppdriver.txt" # empty where llvm-22-dev is missing (run.sh said so)

echo "== tests the targets reference" >&2
$GO test -count=1 -v -run '^TestOneProtectPerTransition$' ./slab >"$OUT/tests.txt"
$GO test -count=1 -v -run '^TestAllocCycleSyscalls$' ./bench/allocbench >>"$OUT/tests.txt"

instr

cat "$OUT"/{spsbench,keepalivebench,membench,allocbench,rtbench,wirebench,procbench,jitbench,wholerun,cppdriver,instr}.txt >"$OUT/bench.txt"

echo "== benchstat" >&2
for p in "${PKGS[@]}" wholerun cppdriver; do
  $GO tool benchstat "$OUT/$p.txt" >"$OUT/$p.benchstat.txt"
done
cat "$OUT"/*.benchstat.txt

verdict
