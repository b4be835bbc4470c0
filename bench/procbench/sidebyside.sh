#!/usr/bin/env bash
# sidebyside.sh: the procbench workloads against orcrt-executor and the
# stock llvm-jitlink-executor, interleaved round by round (each round runs
# every benchmark once: orcrt, then stock, then the ping-pong floor), then
# orcrt beside stock (benchstat) and the targets as ratios of medians.
#
#   bench/procbench/sidebyside.sh                 # COUNT=10 rounds
#   COUNT=20 BENCHTIME=2s bench/procbench/sidebyside.sh
#   ORCRT_EXECUTOR=/path/to/orcrt-executor bench/procbench/sidebyside.sh
#   OUT=results.txt bench/procbench/sidebyside.sh  # keep the raw results
#
# CHRT=1 runs the benchmarks under SCHED_FIFO (chrt -f 50, as root) so that
# other load on a small machine disturbs them less.
set -euo pipefail

cd "$(dirname "$0")/../.."
COUNT=${COUNT:-10}
BENCHTIME=${BENCHTIME:-1s}
BENCH=${BENCH:-'RoundTrip|PipePingPong|Session'}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${OUT:-$tmp/results.txt}
: >"$out"

exe=${ORCRT_EXECUTOR:-}
if [[ -z $exe ]]; then
	exe=$tmp/orcrt-executor
	pgo=()
	[[ -f profiles/orcrt-executor.pgo ]] && pgo=(-pgo=profiles/orcrt-executor.pgo)
	go build "${pgo[@]}" -o "$exe" ./cmd/orcrt-executor
fi
go test -c -o "$tmp/procbench.test" ./bench/procbench
run=()
[[ ${CHRT:-} == 1 ]] && run=(chrt -f 50)

for ((i = 1; i <= COUNT; i++)); do
	(cd bench/procbench && ORCRT_PROCBENCH_EXECUTOR=$exe "${run[@]}" "$tmp/procbench.test" \
		-test.run '^$' -test.bench "$BENCH" -test.benchtime "$BENCHTIME" -test.count 1) |
		grep -E '^(Benchmark|goos|goarch|pkg|cpu)' >>"$out"
	echo "round $i/$COUNT done" >&2
done

echo "== orcrt beside stock (go tool benchstat -col /executor)"
go tool benchstat -col /executor -filter '.name:(RoundTrip OR Session)' "$out"
echo
echo "== floors (BenchmarkPipePingPong)"
go tool benchstat -filter '.name:PipePingPong' "$out"
echo
echo "== targets (ratios of medians)"
awk '
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	for (i = 3; i < NF; i++) if ($(i+1) == "ns/op") { v[name] = v[name] " " $i; break }
}
function median(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function show(what, num, den, target,   r) {
	if (!(num in v) || !(den in v)) { printf "%-62s (not measured)\n", what; return }
	r = median(v[num]) / median(v[den])
	if (target == "") { printf "%-62s %7.3f\n", what, r; return }
	printf "%-62s %7.3f  (target <= %s: %s)\n", what, r, target, (r <= target ? "PASS" : "MISS")
}
END {
	rt = "BenchmarkRoundTrip/transport=pipe/call="
	show("empty call (orcrt) / PipePingPong 32B", rt "empty/executor=orcrt", "BenchmarkPipePingPong/size=32B", 3)
	show("write1MiB (orcrt) / PipePingPong 1MiB", rt "write1MiB/executor=orcrt", "BenchmarkPipePingPong/size=1MiB", 1.5)
	show("alloc-cycle orcrt / stock", rt "alloc-cycle/executor=orcrt", rt "alloc-cycle/executor=stock", 0.4)
	show("write1MiB (orcrt) / PipePingPong 1MiB, 1 MiB pipe (reference)", rt "write1MiB/executor=orcrt", "BenchmarkPipePingPong/size=1MiB-pipe1MiB", "")
	show("empty call stock / PipePingPong 32B (reference)", rt "empty/executor=stock", "BenchmarkPipePingPong/size=32B", "")
	show("write1MiB stock / PipePingPong 1MiB (reference)", rt "write1MiB/executor=stock", "BenchmarkPipePingPong/size=1MiB", "")
	show("empty call orcrt / stock (reference)", rt "empty/executor=orcrt", rt "empty/executor=stock", "")
	show("write1MiB orcrt / stock (reference)", rt "write1MiB/executor=orcrt", rt "write1MiB/executor=stock", "")
}' "$out"
