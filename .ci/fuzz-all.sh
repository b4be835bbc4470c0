#!/usr/bin/env bash
# Runs every Go fuzz target in the module for a bounded time each.
# Usage: .ci/fuzz-all.sh [fuzztime]   (default 20s; e.g. 10m for long runs)
set -euo pipefail
fuzztime=${1:-20s}
cd "$(dirname "$0")/.."
status=0
for pkg in $(go list ./...); do
  targets=$(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true)
  for t in $targets; do
    echo "== fuzz $pkg $t ($fuzztime)"
    if ! go test -run '^$' -fuzz "^${t}\$" -fuzztime "$fuzztime" "$pkg"; then
      echo "FAIL: fuzz $pkg $t" >&2
      status=1
    fi
  done
done
exit $status
