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
# the target's failure is exactly that engine error: a "--- FAIL: Target"
# block whose only line is "context deadline exceeded", with no failing
# input written and no panic. A package whose tests do not build fails.
set -uo pipefail
fuzztime=${1:-20s}
shift || true
cd "$(dirname "$0")/.."
status=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# engineRace reports whether $log shows only golang/go#75804 for target $1.
engineRace() {
  grep -q 'Failing input written to\|panic:' "$log" && return 1
  local block
  block=$(awk -v t="$1" '$0 ~ "^--- FAIL: " t " " {f = 1; next}
    f && /^(FAIL|ok|exit status|--- )/ {f = 0} f' "$log" | sed 's/^[[:space:]]*//' | grep -v '^$')
  [ "$block" = "context deadline exceeded" ]
}

for pkg in $(go list ./...); do
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
    elif engineRace "$t"; then
      echo "note: $t hit Go's fuzztime coordinator race (golang/go#75804); no failing input was written" >&2
    else
      echo "FAIL: fuzz $pkg $t" >&2
      status=1
    fi
  done
done
exit $status
