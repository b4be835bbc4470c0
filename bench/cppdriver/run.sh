#!/usr/bin/env bash
# run.sh: LLVM 22's C++ controller (csrc/driver.cpp) against orcrt-executor
# and the stock llvm-jitlink-executor, unpinned and pinned to CPU 0 over
# pipes, and unpinned over loopback TCP, interleaved round by round (each
# round: orcrt, stock, gofloor, orcrt -pin, stock -pin, gofloor -pin,
# orcrt -tcp, stock -tcp, every call; gofloor, bench/cmd/gofloor, the Go
# floor of start-up, only in the start figures), then orcrt beside stock
# (benchstat).
#
#   bench/cppdriver/run.sh                      # COUNT=10, BENCHTIME=500ms
#   COUNT=2 BENCHTIME=100ms bench/cppdriver/run.sh
#   ORCRT_EXECUTOR=/path/to/orcrt-executor bench/cppdriver/run.sh
#   OUT=results.txt bench/cppdriver/run.sh      # default bench/out/cppdriver.txt
#
# OUT is emptied first so that benchstat never mixes runs; every round
# appends to it. Without llvm-22-dev or clang++-22 it prints the skip and
# exits 0.
set -euo pipefail

cd "$(dirname "$0")/../.."
COUNT=${COUNT:-10}
BENCHTIME=${BENCHTIME:-500ms}
BENCH=${BENCH:-all}
OUT=${OUT:-bench/out/cppdriver.txt}
STOCK=${STOCK:-/usr/lib/llvm-22/bin/llvm-jitlink-executor}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# In an install directory as llvm-jitlink-22 is, so that orcrt identifies
# the controller's release as it does under llvm-jitlink, by its path.
driver=$tmp/llvm-22/bin/cppdriver
mkdir -p "${driver%/*}"
bench/cppdriver/build.sh "$driver"
[[ -x $driver ]] || exit 0 # build.sh printed why

exe=${ORCRT_EXECUTOR:-}
if [[ -z $exe ]]; then
	exe=$tmp/orcrt-executor
	pgo=()
	[[ -f profiles/orcrt-executor.pgo ]] && pgo=(-pgo=profiles/orcrt-executor.pgo)
	go build "${pgo[@]}" -o "$exe" ./cmd/orcrt-executor
fi
execs=("orcrt=$exe")
if [[ -x $STOCK ]]; then
	execs+=("stock=$STOCK")
else
	echo "cppdriver: no stock executor at $STOCK: orcrt only" >&2
fi
# The Go floor of start-up (bench/cmd/gofloor) sends the Setup orcrt
# sends to LLVM 22 and nothing else; it is timed by the start figures only.
go build -o "$tmp/gofloor" ./bench/cmd/gofloor
ORCRT_LLVM=22 "$exe" filedescs=0,1 </dev/null >"$tmp/setup.bin"
export ORCRT_GOFLOOR_SETUP=$tmp/setup.bin

mkdir -p "$(dirname "$OUT")"
: >"$OUT"
for ((i = 1; i <= COUNT; i++)); do
	for pin in "" -pin; do
		for e in "${execs[@]}"; do
			"$driver" $pin -label "${e%%=*}" "${e#*=}" "$BENCH" "$BENCHTIME" >>"$OUT"
		done
		[[ $BENCH != start && $BENCH != all ]] ||
			"$driver" $pin -label gofloor "$tmp/gofloor" start "$BENCHTIME" >>"$OUT"
	done
	[[ $BENCH == start ]] || for e in "${execs[@]}"; do
		"$driver" -tcp -label "${e%%=*}" "${e#*=}" "$BENCH" "$BENCHTIME" >>"$OUT"
	done
	echo "round $i/$COUNT done" >&2
done

go tool benchstat -col /executor "$OUT"
