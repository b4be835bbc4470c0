#!/usr/bin/env bash
# Runs every Go fuzz target in the module for a bounded time each.
# Usage: .ci/fuzz-all.sh [fuzztime] [go test flags...]
#   default fuzztime 20s; e.g. `.ci/fuzz-all.sh 10m -parallel 1` for long runs.
#
# A target fails when it finds an input (go test writes it under
# testdata/fuzz/<Target>/ and prints "Failing input written to"), or fails
# for any reason other than the one below.
#
# Go 1.26's fuzz coordinator can report "context deadline exceeded" at the
# -fuzztime boundary without any failing input (golang/go#75804, fixed in
# Go 1.27): the deadline races a busy worker's shutdown. That is not a
# finding; it is logged and the target counts as passed, but only when
# the target's failure is exactly that engine error, as testing.F prints
# it: a "--- FAIL: Target (T s)" block whose only line is "context
# deadline exceeded", T at least the fuzztime (the race fires at its end),
# no failing input written and no panic. A package whose tests do not
# build fails.
#
# Environment: FUZZ_ALL_PKGS (package patterns, default ./...).
# `.ci/fuzz-all.sh --self-test` checks engineRace on made-up logs.
set -uo pipefail
fuzztime=${1:-20s}
shift || true
cd "$(dirname "$0")/.."
status=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# seconds prints a Go duration ($1: 20s, 1m30s, 1h, 500ms) in seconds.
seconds() {
  awk -v d="$1" 'BEGIN { s = 0; x = d
    while (match(x, /^[0-9.]+(h|ms|m|s)/)) {
      u = substr(x, RSTART, RLENGTH); x = substr(x, RLENGTH + 1)
      n = u + 0; sub(/^[0-9.]+/, "", u)
      s += n * (u == "h" ? 3600 : u == "m" ? 60 : u == "ms" ? 0.001 : 1)
    }
    print (x == "" ? s : -1) }'
}

# engineRace reports whether $log shows only golang/go#75804 for target $1
# run for the duration $2.
engineRace() {
  grep -q 'Failing input written to\|panic:' "$log" && return 1
  local block took want
  block=$(awk -v t="$1" '$0 ~ "^--- FAIL: " t " " {f = 1; next}
    f && /^(FAIL|ok|exit status|--- )/ {f = 0} f' "$log" | sed 's/^[[:space:]]*//' | grep -v '^$')
  [ "$block" = "context deadline exceeded" ] || return 1
  took=$(sed -n "s/^--- FAIL: $1 (\([0-9.]*\)s)\$/\1/p" "$log" | head -n 1)
  want=$(seconds "$2")
  [ -n "$took" ] && awk -v a="$took" -v b="$want" 'BEGIN { exit !(b >= 0 && a >= b) }'
}

if [ "$fuzztime" = --self-test ]; then
  fail=0
  check() { # want name fuzztime log
    printf '%s' "$4" >"$log"
    if engineRace FuzzX "$3"; then got=forgiven; else got=failed; fi
    [ "$got" = "$1" ] || { echo "fuzz-all self-test: $2: $got, want $1" >&2; fail=1; }
  }
  ok='fuzz: elapsed: 20s, execs: 40304 (2015/sec), new interesting: 4 (total: 108)\n'
  check forgiven engine-race 20s "$(printf -- "$ok--- FAIL: FuzzX (20.31s)\n    context deadline exceeded\nFAIL\nexit status 1\n")"
  check forgiven engine-race-minutes 1m "$(printf -- "--- FAIL: FuzzX (60.02s)\n    context deadline exceeded\nFAIL\n")"
  check failed early-deadline 20s "$(printf -- "--- FAIL: FuzzX (3.10s)\n    context deadline exceeded\nFAIL\n")"
  check failed target-error 20s "$(printf -- "--- FAIL: FuzzX (20.31s)\n    x_test.go:12: dial: context deadline exceeded\nFAIL\n")"
  check failed more-lines 20s "$(printf -- "--- FAIL: FuzzX (20.31s)\n    context deadline exceeded\n    x_test.go:9: leaked goroutine\nFAIL\n")"
  check failed input-written 20s "$(printf -- "--- FAIL: FuzzX (20.31s)\n    context deadline exceeded\n    Failing input written to testdata/fuzz/FuzzX/ab\nFAIL\n")"
  check failed panic 20s "$(printf -- "panic: context deadline exceeded\n--- FAIL: FuzzX (20.31s)\n    context deadline exceeded\nFAIL\n")"
  check failed other-target 20s "$(printf -- "--- FAIL: FuzzY (20.31s)\n    context deadline exceeded\nFAIL\n")"
  [ $fail = 0 ] && echo "fuzz-all self-test: ok"
  exit $fail
fi

# shellcheck disable=SC2086 # a list of patterns
for pkg in $(go list ${FUZZ_ALL_PKGS:-./...}); do
  if ! list=$(go test -list '^Fuzz' "$pkg" 2>&1); then
    echo "$list"
    echo "FAIL: $pkg does not build its tests" >&2
    status=1
    continue
  fi
  targets=$(echo "$list" | grep '^Fuzz' || true)
  for t in $targets; do
    echo "== fuzz $pkg $t ($fuzztime)"
    if go test -run '^$' -fuzz "^${t}\$" -fuzztime "$fuzztime" "$@" "$pkg" >"$log" 2>&1; then
      tail -n 3 "$log"
      continue
    fi
    cat "$log"
    if grep -q 'Failing input written to' "$log"; then
      echo "FAIL: fuzz $pkg $t found an input (committed under testdata/fuzz/$t once fixed)" >&2
      status=1
    elif engineRace "$t" "$fuzztime"; then
      echo "note: $t hit Go's fuzztime coordinator race (golang/go#75804); no failing input was written" >&2
    else
      echo "FAIL: fuzz $pkg $t" >&2
      status=1
    fi
  done
done
exit $status
