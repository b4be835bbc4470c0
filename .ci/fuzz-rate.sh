#!/usr/bin/env bash
# Measures every fuzz target's throughput: runs each for a fixed time with
# one worker and prints its execs, execs/s after the baseline, and the
# longest stretch without progress (from go test's 3 s progress lines),
# and the 1-minute load average at the end of its run (other work on the
# machine slows it).
# Usage: .ci/fuzz-rate.sh [fuzztime [target-regexp]] (default 60s, every
# target). `make fuzz-rate`. A target that finds a failing input is marked
# FAIL (its rate then covers the run up to the find), and the exit status
# is 1.
set -uo pipefail
fuzztime=${1:-60s}
only=${2:-.}
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
printf '%-48s %10s %10s %12s %6s\n' target execs execs/s longest-stall load
for pkg in $(go list ./...); do
  for t in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' | grep -E -- "$only" || true); do
    failed=0
    go test -run '^$' -fuzz "^${t}\$" -fuzztime "$fuzztime" -parallel 1 "$pkg" >"$log" 2>&1 || failed=1
    load=$(cut -d' ' -f1 /proc/loadavg)
    awk -v name="${pkg#github.com/orcgo/orcrt/}.$t" -v failed=$failed -v load="$load" '
      /fuzz: elapsed: .*execs: / {
        el = $3; sub(/,$/, "", el)  # 3s, 1m0s, 1h2m3s
        secs = 0
        if (match(el, /[0-9]+h/)) secs += substr(el, RSTART, RLENGTH - 1) * 3600
        if (match(el, /[0-9]+m/)) secs += substr(el, RSTART, RLENGTH - 1) * 60
        if (match(el, /[0-9.]+s/)) secs += substr(el, RSTART, RLENGTH - 1)
        el = secs
        ex = $5; gsub(/,/, "", ex); ex += 0
        if (!started) { base_t = el; base_x = ex }
        if (started && ex == last_x) { stall = el - since } else { since = el }
        if (stall > longest) longest = stall
        started = 1; last_x = ex; last_t = el
      }
      END {
        rate = (last_t > base_t) ? (last_x - base_x) / (last_t - base_t) : 0
        printf "%-48s %10d %10.0f %11ds %6s%s\n", name, last_x, rate, longest, load, failed ? "  FAIL (found an input: see testdata/fuzz)" : ""
      }' "$log"
    if [ $failed = 1 ]; then status=1; grep -E -A3 -- '--- FAIL|Failing input' "$log" | head -8 >&2; fi
  done
done
exit $status
