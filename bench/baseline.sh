#!/usr/bin/env bash
# Records a benchmark baseline (`make bench-baseline`): the whole suite
# (bench/suite.sh, the same run as `make bench`), preceded by the machine
# description and the exact command, into FILE (default
# profiles/baseline-$(go env GOARCH).txt). With --from DIR it assembles
# the baseline from an existing suite run in DIR instead of running it.
#
# The header lines start with "#", which benchfmt ignores, so the file
# compares directly with a later run:
#
#   go tool benchstat profiles/baseline-amd64.txt bench/out/bench.txt
#
# Run it on an idle machine. arm64 has its own recipe for real hardware
# (`make arm64-baseline`, .ci/arm64.mk; see profiles/arm64.md).
set -euo pipefail
out=${1:-profiles/baseline-$(go env GOARCH).txt}
from=""
if [ "${2:-}" = --from ]; then from=$3; fi
COUNT=${COUNT:-10} BENCHTIME=${BENCHTIME:-200ms} WHOLE_N=${WHOLE_N:-10}
if [ -z "$from" ]; then
  # A missed target (suite.sh exits 1) still leaves a whole run to record.
  COUNT=$COUNT BENCHTIME=$BENCHTIME WHOLE_N=$WHOLE_N bench/suite.sh ||
    echo "baseline: the verdict failed (bench/out/summary.txt); recording the run anyway" >&2
  from=bench/out
fi
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')
gocpu=$(grep -m1 '^cpu: ' "$from/bench.txt" | cut -d' ' -f2- | sed 's/ *$//')
virt=$(systemd-detect-virt 2>/dev/null || true)
{
  echo "# orcrt benchmark baseline ($(go env GOOS)/$(go env GOARCH))"
  echo "# machine: $cpu (as Go reports it: $gocpu); $(nproc) cores; $(free -g | awk '/^Mem:/{print $2}') GiB RAM${virt:+; virtualized: $virt}"
  echo "# kernel: $(uname -srvm)"
  echo "# go: $(go version | cut -d' ' -f3-)"
  echo "# llvm: $(/usr/lib/llvm-22/bin/llvm-jitlink --version 2>/dev/null | grep -m1 -o 'LLVM version [0-9.]*' || echo none)"
  echo "# commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' + uncommitted changes')"
  echo "# date: $(date -u -r "$from/bench.txt" '+%Y-%m-%dT%H:%MZ')"
  echo "# command: COUNT=$COUNT BENCHTIME=$BENCHTIME WHOLE_N=$WHOLE_N bench/suite.sh   (= make bench; make bench-baseline)"
  echo "#   i.e. per package: go test -c, then COUNT interleaved rounds of"
  echo "#   <pkg>.test -test.run '^\$' -test.bench . -test.benchmem -test.count 1 -test.benchtime $BENCHTIME -test.cpu $(nproc) (keepalivebench: 1,2,4,8),"
  echo "#   then go run ./bench/cmd/wholerun -n $WHOLE_N"
  echo "# compare: go tool benchstat $out new.txt"
  echo
  cat "$from/bench.txt"
} >"$out.tmp"
mv "$out.tmp" "$out"
echo "bench/baseline.sh: wrote $out" >&2
