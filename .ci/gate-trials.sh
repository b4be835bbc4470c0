#!/usr/bin/env bash
# Checks the benchmark gate both ways (issue 23): injects a slowdown of
# known cost into a scratch clone, commits it, runs `make bench-gate`
# against its parent TRIALS times and counts the failures; "none" makes
# no change and compares the parent with itself (-compare-identical), to
# count false alarms.
#
#   .ci/gate-trials.sh TRIALS INJECTION...
#
# Injections (each a spin loop of a known count on one measured path;
# the counts add about 15% to the figure's time on the 2-core CI VM,
# measured with the figure's own benchmark, RATIONALE.md):
#   sps-decode      sps.FinalizeRequest.Decode       BenchmarkSPS decode/finalize
#   alloc-cycle     alloc.MemoryManager.initializeWith  BenchmarkMemoryManager alloc-cycle
#   pipe-roundtrip  simpleremote.Reader, per message     procbench RoundTrip pipe empty
#   arm64-sps-decode   sps.FinalizeRequest.Decode, in arm64 builds only:
#                   +15% of its arm64 instruction count (instr:arm64
#                   entries; amd64 runs the same code as its parent)
#   arm64-alloc-cycle  alloc.MemoryManager.initializeWith, arm64 only, +15%
#   none            no change
#
# GATE_SET (default bench/gate.txt) is the gated set the trials run; a
# smaller one (the injected path's entries) keeps a trial short and only
# lowers the count of failures, never raises it.
#   .ci/gate-trials.sh --inject DIR INJECTION   only applies it to the
#                                               tree DIR (calibration)
#   .ci/gate-trials.sh --bench TRIALS INJECTION...
#       the same injections against `make bench`'s verdict: runs `make
#       bench-instr` (its instruction-count targets, the part that judges
#       code rather than the machine) TRIALS times in the injected tree;
#       a trial catches the slowdown when make exits non-zero with the
#       injected path's target failed. With GATE_SET=short, a trial counts
#       only the injected package's entries and judges only the injected
#       path's target (a minute instead of four; the other figures are
#       not changed by the injection). FULL=1 runs the whole `make bench`
#       (20 minutes a trial) instead.
#   .ci/gate-trials.sh --creep                  five commits, each about
#       4% more instructions in sps.FinalizeRequest.Decode (9 instructions
#       per spin iteration, 2126 per decode: measured under cachegrind),
#       the gate run against each one's parent; says which commit failed
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${GATE_TRIALS_OUT:-$root/bench/out/gate-trials}
mkdir -p "$out"

# Iterations of a multiply chain, 1 ns each (3 cycles; 0.99 ns measured):
# 15% of the quiet machine's figures, 280 ns, 14.5 us, and 53 us per
# round trip (two messages read).
SPIN_SPS=${SPIN_SPS:-42}
SPIN_ALLOC=${SPIN_ALLOC:-2200}
SPIN_PIPE=${SPIN_PIPE:-4000}
# arm64: 15% of the instructions per op under QEMU (1906 and 16470), at
# the measured 10.1 and 10.0 instructions an iteration (41 iterations
# added 415 to the decode, 211 added 2110 to the alloc cycle).
SPIN_SPS_ARM64=${SPIN_SPS_ARM64:-28}
SPIN_ALLOC_ARM64=${SPIN_ALLOC_ARM64:-247}

spin_file() { # package dir, package name[, arm64: the spin runs in arm64 builds only]
  local loop=gateTrialSpin
  [ -z "${3:-}" ] || loop=gateTrialLoop
  cat >"$1/zz_gate_trial.go" <<GO
package $2

// gateTrialSink keeps the injected spin from being optimized away.
var gateTrialSink int

func $loop(n int) {
	for i := 0; i < n; i++ {
		gateTrialSink = gateTrialSink*31 + i
	}
}
GO
  [ -n "${3:-}" ] || return 0
  printf 'package %s\n\nfunc gateTrialSpin(n int) { gateTrialLoop(n) }\n' "$2" >"$1/zz_gate_trial_arm64.go"
  printf '//go:build !arm64\n\npackage %s\n\nfunc gateTrialSpin(int) {}\n' "$2" >"$1/zz_gate_trial_other.go"
}

inject() { # clone, injection
  local c=$1
  case $2 in
  sps-decode)
    spin_file "$c/sps" sps
    sed -i "s/^func (r \*FinalizeRequest) Decode(d \*Decoder) {\$/&\n\tgateTrialSpin($SPIN_SPS)/" "$c/sps/orc.go" ;;
  alloc-cycle)
    spin_file "$c/alloc" alloc
    sed -i "s/^func (m \*MemoryManager) initializeWith(.*{\$/&\n\tgateTrialSpin($SPIN_ALLOC)/" "$c"/alloc/*.go ;;
  pipe-roundtrip)
    spin_file "$c/rt/simpleremote" simpleremote
    sed -i "s/^\(\t*\)h := ParseHeader(r.buf\[r.lo:\])\$/\1gateTrialSpin($SPIN_PIPE)\n&/" "$c/rt/simpleremote/reader.go" ;;
  arm64-sps-decode)
    spin_file "$c/sps" sps arm64
    sed -i "s/^func (r \*FinalizeRequest) Decode(d \*Decoder) {\$/&\n\tgateTrialSpin($SPIN_SPS_ARM64)/" "$c/sps/orc.go" ;;
  arm64-alloc-cycle)
    spin_file "$c/alloc" alloc arm64
    sed -i "s/^func (m \*MemoryManager) initializeWith(.*{\$/&\n\tgateTrialSpin($SPIN_ALLOC_ARM64)/" "$c"/alloc/*.go ;;
  none) return 0 ;;
  *) echo "gate-trials: unknown injection $2" >&2; exit 2 ;;
  esac
  if git -C "$c" diff --quiet; then
    echo "gate-trials: injection $2 changed nothing (its anchor line moved?)" >&2; exit 2
  fi
}

if [ "${1:-}" = --inject ]; then
  inject "${2:?tree}" "${3:?injection}"
  exit 0
fi
if [ "${1:-}" = --bench ]; then
  trials=${2:?usage: gate-trials.sh --bench TRIALS INJECTION...}
  shift 2
  for inj in "$@"; do
    kind=instr
    case $inj in
    sps-decode) id=instr-sps-decode pkg=spsbench ;;
    alloc-cycle) id=instr-alloc-cycle pkg=allocbench ;;
    pipe-roundtrip) id=instr-pipe-roundtrip pkg=wirebench ;;
    arm64-sps-decode) id=instr-arm64-sps-decode pkg=spsbench kind=instr:arm64 ;;
    arm64-alloc-cycle) id=instr-arm64-alloc-cycle pkg=allocbench kind=instr:arm64 ;;
    *) echo "gate-trials: unknown injection $inj" >&2; exit 2 ;;
    esac
    clone=$(mktemp -d /tmp/bench-trial-XXXXXX)
    git clone -q "$root" "$clone"
    inject "$clone" "$inj"
    target=bench-instr
    [ -z "${FULL:-}" ] || target=bench
    vars=()
    if [ "${GATE_SET:-}" = short ]; then
      { grep '^reason:' "$clone/bench/gate.txt"; grep -E "^$kind +\./bench/$pkg " "$clone/bench/gate.txt"; } >"$clone/bench/gate.short"
      grep -E "^[0-9]+ +$id " "$clone/bench/targets.txt" >"$clone/bench/targets.short"
      vars=(GATE_FILE=bench/gate.short TARGETS=bench/targets.short)
    fi
    caught=0
    for i in $(seq 1 "$trials"); do
      log=$out/bench-$inj-$i.log
      if (cd "$clone" && env "${vars[@]}" make -s $target >"$log" 2>&1); then status=0; else status=$?; fi
      row=$(grep -E "^[0-9]+ +$id " "$log" | tr -s ' ' || true)
      missed=$(grep -E '^[0-9]+ of [0-9]+ targets met' "$log" || echo "no verdict")
      if [ "$status" -ne 0 ] && [[ $row == *FAIL* ]]; then caught=$((caught + 1)); fi
      echo "gate-trials: bench $inj trial $i: make $target exit $status; $missed; ${row:-$id: no row}"
    done
    echo "gate-trials: bench $inj: caught in $caught of $trials trials"
    rm -rf "$clone"
  done
  exit 0
fi
if [ "${1:-}" = --creep ]; then
  clone=$(mktemp -d /tmp/gate-creep-XXXXXX)
  git clone -q "$root" "$clone"
  spin_file "$clone/sps" sps
  sed -i "s/^func (r \*FinalizeRequest) Decode(d \*Decoder) {\$/&\n\tgateTrialSpin(0)/" "$clone/sps/orc.go"
  set_file=bench/gate.txt
  [ -z "${GATE_SET:-}" ] || { cp "$GATE_SET" "$clone/bench/gate.txt.trial"; set_file=bench/gate.txt.trial; }
  git -C "$clone" add -A
  git -C "$clone" -c user.name=trial -c user.email=trial@localhost commit -qm "gate creep: hook"
  for k in 1 2 3 4 5; do
    n=$(awk -v k=$k 'BEGIN { printf "%d", (1.04^k - 1) * 2126 / 9 + 0.5 }')
    sed -i "s/gateTrialSpin([0-9]*)/gateTrialSpin($n)/" "$clone/sps/orc.go"
    git -C "$clone" -c user.name=trial -c user.email=trial@localhost commit -qam "gate creep $k: spin $n"
    log=$out/creep-$k.log
    if (cd "$clone" && make -s bench-gate BENCH_BASE=HEAD~1 BENCH_GATE_FILE=$set_file >"$log" 2>&1); then verdict=pass; else verdict=FAIL; fi
    echo "gate-trials: creep commit $k (spin $n): $verdict: $(grep -E '^spsbench:SPS/op=decode/shape=finalize ' "$log" | tr -s ' ')"
  done
  rm -rf "$clone"
  exit 0
fi
trials=${1:?usage: gate-trials.sh TRIALS INJECTION...}
shift
for inj in "$@"; do
  clone=$(mktemp -d /tmp/gate-trial-XXXXXX)
  git clone -q "$root" "$clone"
  [ -z "${GATE_SET:-}" ] || cp "$GATE_SET" "$clone/bench/gate.txt.trial"
  inject "$clone" "$inj"
  extra=()
  base=HEAD~1
  if [ "$inj" = none ]; then
    base=HEAD
    extra=(-compare-identical)
  else
    git -C "$clone" add -A
    git -C "$clone" -c user.name=trial -c user.email=trial@localhost commit -qm "gate trial: $inj"
  fi
  set_file=bench/gate.txt
  [ -z "${GATE_SET:-}" ] || set_file=bench/gate.txt.trial
  fails=0
  for i in $(seq 1 "$trials"); do
    log=$out/$inj-$i.log
    if (cd "$clone" && make -s bench-gate BENCH_BASE=$base BENCH_GATE_FILE=$set_file \
        BENCH_GATE_EXTRA="${extra[*]}" >"$log" 2>&1); then
      verdict=pass
    else
      verdict=FAIL; fails=$((fails + 1))
    fi
    echo "gate-trials: $inj trial $i: $verdict ($(grep -c 'FAIL (' "$log" || true) failing lines) $log"
  done
  echo "gate-trials: $inj: the gate failed $fails of $trials trials"
  rm -rf "$clone"
done
