#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/oss-fuzz/build.sh: the native targets'
# bodies behind LLVMFuzzerTestOneInput, linked with clang's libFuzzer) and
# runs each for a fixed time on one worker, beside the native engine's
# rate of the same target measured in the same run (.ci/fuzz-rate.sh).
# Prints per target: the native execs/s, libFuzzer's execs and execs/s
# (stat::number_of_executed_units, stat::average_exec_per_sec), the
# 1-minute load average at the end of each engine's run (other work on
# the machine slows both), and libFuzzer's coverage and features after
# the seed corpus and at the end.
# FuzzFloor is each engine's own ceiling (a target that does nothing).
#
# Usage: .ci/fuzz-libfuzzer.sh [time [target-regexp]] (default 60s, every
# target; time as 90s, 2m, 1h). `make fuzz-libfuzzer`.
# Environment: CXX (default clang++-22), LIBFUZZER_FLAGS (more libFuzzer
# flags, e.g. -max_len=4096), LIBFUZZER_WORK (keep the binaries, corpora
# and logs there), NATIVE=0 (libFuzzer only).
#
# Each libFuzzer run starts from the target's seed corpus (the native
# target's f.Add seeds and testdata/fuzz/FuzzX/, raw) in a fresh corpus
# directory. A crash (a failed invariant or a panic aborts; a timeout or
# out-of-memory) is written back into testdata/fuzz/FuzzX/ in go test's
# format, where it runs as a regression input with plain go test, and the
# exit status is 1; so it is when the native engine finds an input.
set -uo pipefail
fuzztime=${1:-60s}
only=${2:-.}
cd "$(dirname "$0")/.."
export CXX=${CXX:-clang++-22}

secs=$(awk -v d="$fuzztime" 'BEGIN {
  s = 0; x = d
  if (match(x, /[0-9]+h/)) s += substr(x, RSTART, RLENGTH - 1) * 3600
  if (match(x, /[0-9]+m/)) s += substr(x, RSTART, RLENGTH - 1) * 60
  if (match(x, /[0-9.]+s/)) s += substr(x, RSTART, RLENGTH - 1)
  if (d ~ /^[0-9]+$/) s = d
  printf "%d", s }')
[ "$secs" -gt 0 ] || { echo "fuzz-libfuzzer: bad time $fuzztime" >&2; exit 2; }

if [ -n "${LIBFUZZER_WORK:-}" ]; then
  work=$LIBFUZZER_WORK
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
status=0

go build -o "$work/corpus" ./fuzz/internal/corpus || exit 1
targets=$( (
  "$work/corpus" targets | awk '{ print $1 }'
  echo FuzzFloor
) | grep -E -- "$only" || true)
[ -n "$targets" ] || { echo "fuzz-libfuzzer: no target matches $only" >&2; exit 2; }

echo "== build (fuzz/oss-fuzz/build.sh)" >&2
# shellcheck disable=SC2086 # one name per word
OUT=$work/out WORK=$work/build fuzz/oss-fuzz/build.sh $targets || exit 1

# The native rates: one .ci/fuzz-rate.sh run over the same targets.
declare -A native=() nload=()
if [ "${NATIVE:-1}" != 0 ]; then
  re="^($(paste -sd'|' <<<"$targets"))\$"
  echo "== native engine: .ci/fuzz-rate.sh $fuzztime '$re'" >&2
  .ci/fuzz-rate.sh "$fuzztime" "$re" >"$work/native.txt" || status=1
  cat "$work/native.txt" >&2
  while read -r name _ rate _ load _; do
    native[${name##*.}]=$rate
    nload[${name##*.}]=$load
  done < <(tail -n +2 "$work/native.txt")
fi

row() { printf '%-16s %14s %5s %14s %11s %5s %14s %14s  %s\n' "$@"; }
results=$work/results.txt
row target native-execs/s load libfuzzer-execs libfuzzer/s load cov-start-end ft-start-end result >"$results"
for t in $targets; do
  echo "== libFuzzer $t (${secs}s, one worker)" >&2
  corpus=$work/corpus-$t
  seeds=$work/seeds-$t
  art=$work/artifacts-$t
  rm -rf "$corpus" "$seeds" "$art"
  mkdir -p "$corpus" "$seeds" "$art"
  if [ "$t" = FuzzFloor ]; then
    printf '\0' >"$seeds/zero"
  else
    "$work/corpus" seeds "$t" "$seeds" || exit 1
  fi
  log=$work/$t.log
  rc=0
  # shellcheck disable=SC2086 # LIBFUZZER_FLAGS is a flag list
  "$work/out/$t" -max_total_time="$secs" -timeout=60 -print_final_stats=1 \
    -artifact_prefix="$art/" ${LIBFUZZER_FLAGS:-} "$corpus" "$seeds" >"$log" 2>&1 || rc=$?
  load=$(cut -d' ' -f1 /proc/loadavg)
  execs=$(awk '/^stat::number_of_executed_units:/ { print $2 }' "$log")
  rate=$(awk '/^stat::average_exec_per_sec:/ { print $2 }' "$log")
  cov=$(awk '/INITED cov:/ { for (i = 1; i < NF; i++) { if ($i == "cov:") c = $(i+1); if ($i == "ft:") f = $(i+1) } }
    /(DONE|pulse|NEW|REDUCE) +cov:/ { for (i = 1; i < NF; i++) { if ($i == "cov:") c2 = $(i+1); if ($i == "ft:") f2 = $(i+1) } }
    END { if (c2 == "") { c2 = c; f2 = f }; if (c == "") print "- -"; else printf "%s-%s %s-%s", c, c2, f, f2 }' "$log")
  result=ok
  found=$(find "$art" -type f | sort)
  if [ "$rc" != 0 ] || [ -n "$found" ]; then
    status=1
    result="FAIL (exit $rc)"
    grep -E -B2 -A25 '^panic: |ERROR: libFuzzer|^fatal error' "$log" | head -60 >&2
    for f in $found; do
      if [ "$t" = FuzzFloor ]; then
        echo "fuzz-libfuzzer: $t: $f" >&2
        continue
      fi
      if p=$("$work/corpus" import "$t" "$f"); then
        echo "fuzz-libfuzzer: $t: $(basename "$f") written to $p (go test -run '^$t/$(basename "$p")\$' ./${p%/testdata/*})" >&2
        result="$result, $p"
      fi
    done
    [ -n "$found" ] || tail -n 30 "$log" >&2
  fi
  # shellcheck disable=SC2086 # two words each
  row "$t" "${native[$t]:--}" "${nload[$t]:--}" "${execs:--}" "${rate:--}" "$load" $cov "$result" >>"$results"
done
echo
cat "$results"
exit $status
