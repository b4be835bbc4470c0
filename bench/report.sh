#!/usr/bin/env bash
# `make bench-report`: records per-call latency samples of the
# cross-process round trips (bench/procbench TestLatencySamples, orcrt
# and stock alternating) and renders bench/out/report/index.html with
# bench/cmd/benchreport from them and the last `make bench` (bench/out).
set -euo pipefail
OUT=${OUT:-bench/out}
[ -s "$OUT/keepalivebench.txt" ] && [ -s "$OUT/spsbench.txt" ] || {
  echo "bench-report: run \`make bench\` first (no $OUT/keepalivebench.txt or $OUT/spsbench.txt)" >&2; exit 1; }
lat=$(cd "$OUT" && pwd)/latency.txt
ORCRT_REQUIRE_LLVM=1 ORCRT_PROCBENCH_LATENCY=$lat go test -count=1 -run '^TestLatencySamples$' ./bench/procbench
# benchreport is a module of its own (bench/cmd/benchreport/go.mod: the
# plotting stack stays out of orcrt's go.mod), so it runs from its
# directory, with absolute paths.
mkdir -p "$OUT/report"
in=$(cd "$OUT" && pwd)
go -C bench/cmd/benchreport run . -in "$in" -latency "$lat" -out "$in/report"
echo "bench-report: file://$(cd "$OUT/report" && pwd)/index.html"
