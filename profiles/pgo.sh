#!/usr/bin/env bash
# Regenerates profiles/orcrt-executor.pgo, the PGO profile `go build -pgo`
# uses for orcrt-executor (Makefile `executor`, the e2e harness,
# bench/procbench, bench/cmd/wholerun, .ci/bench.mk). Run from the module
# root: `make pgo-profile` (RUNS=<n> for more whole runs).
#
# The workloads are the end-to-end ones: whole llvm-jitlink runs of the
# four wholerun programs (default and shared memory managers), the e2e
# suite, and the cross-process round trips of bench/procbench. They run
# a plain (non-PGO) build with ORCRT_CPUPROFILE=<dir>/cpu-%p.pprof, so
# that every executor process writes its own CPU profile, and the
# profiles are merged with `go tool pprof -proto`.
set -euo pipefail
RUNS=${RUNS:-15}
out=${1:-profiles/orcrt-executor.pgo}
tmp=$(mktemp -d /tmp/orcrt-pgo.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
exe=$tmp/orcrt-executor
go build -pgo=off -tags orcrt_cpuprofile -o "$exe" ./cmd/orcrt-executor
mkdir "$tmp/prof"
export ORCRT_CPUPROFILE=$tmp/prof/cpu-%p.pprof

echo "pgo: whole runs (n=$RUNS)" >&2
go run ./bench/cmd/wholerun -n "$RUNS" -memmgr default,shared -orcrt "$exe" >"$tmp/wholerun.txt"
echo "pgo: e2e suite" >&2
ORCRT_E2E_EXECUTOR=$exe go test -count=1 ./cmd/orcrt-executor/e2e/ >"$tmp/e2e.txt"
echo "pgo: cross-process round trips" >&2
ORCRT_PROCBENCH_EXECUTOR=$exe go test -run '^$' -bench 'RoundTrip/transport=pipe/call=/executor=orcrt' \
  -benchtime=2s -count=1 ./bench/procbench >"$tmp/procbench.txt"

# Runs that ended without stopping the profiler (killed executors in
# the fault tests) leave empty files; pprof would only warn about them.
find "$tmp/prof" -empty -delete
n=$(ls "$tmp/prof" | wc -l)
echo "pgo: merging $n profiles into $out" >&2
# Profiles without a sample (runs too short for one) go last, largest
# first: with Go 1.26.8's pprof, a merge whose first profile has no
# sample loses every Function.start_line, and the compiler rejects a
# profile without them. The build below catches any other way to lose them.
go tool pprof -proto $(ls -S "$tmp"/prof/*.pprof) >"$tmp/merged.pgo"
go build -pgo="$tmp/merged.pgo" -o /dev/null ./cmd/orcrt-executor ||
  { echo "pgo: go build rejects the merged profile; $out is unchanged" >&2; exit 1; }
mv "$tmp/merged.pgo" "$out"
go tool pprof -top -nodecount=15 "$out" 2>/dev/null | head -25 >&2
