#!/usr/bin/env bash
# Statement coverage the checked-in fuzz corpora (each target's f.Add seeds
# plus testdata/fuzz/<Target>/) reach in the packages each target is meant
# to exercise, and the functions no target reaches. Runs every target's
# corpus once as a test (no -fuzz), with -coverpkg its packages.
# Usage: .ci/fuzz-cover.sh [OUT=dir]  (`make fuzz-cover`), from anywhere.
#   OUT=dir                keep the profiles (per target, and merged.out)
#   MIN_SPS=90             fail if package sps (union of its targets) is below
#   MIN_WIRE=90            ... the wire reader+framing (reader.go, frame.go and
#                          the CA's readLoop, union of FuzzReader and FuzzFrames)
#   MIN_SERVICES=60        ... any bootstrap service package (service/*, alloc;
#                          union of the targets covering it)
#   MIN_DECODING=85        ... any bootstrap service's decoding paths (the
#                          package without its host-side API, DECODING below)
# Exit status: 0, a report, unless a target's test fails or a MIN_* is unmet.
set -euo pipefail
cd "$(dirname "$0")/.."
for a in "$@"; do
  case $a in
  OUT=*) OUT=${a#OUT=} ;;
  *) echo "usage: $0 [OUT=dir]" >&2; exit 2 ;;
  esac
done
GO=${GO:-go}
M=github.com/orcgo/orcrt
SR=$M/rt/simpleremote
SERVICES=$M/service/dylib,$M/service/ehframe,$M/service/entry,$M/service/gdbjit,$M/service/jitdispatch,$M/service/memaccess,$M/alloc
BOOT=$SERVICES,$SR,$M/rt

# target | package directory | -coverpkg (sps for every target that decodes
# SPS, so that the sps union counts all their corpora)
TARGETS="
FuzzDecode|./fuzz/spsfuzz|$M/sps
FuzzRoundTrip|./fuzz/spsfuzz|$M/sps
FuzzDiff|./fuzz/spsfuzz|$M/sps
FuzzReader|./fuzz/wirefuzz|$SR
FuzzFrames|./fuzz/wirefuzz|$SR
FuzzExecutor|./fuzz/executorfuzz|$BOOT,$M/sps
FuzzWrappers|./fuzz/executorfuzz|$BOOT,$M/sps
FuzzConfinedWrappers|./fuzz/executorfuzz|$BOOT,$M/sps
FuzzMemoryManagerWrappers|./alloc|$M/alloc,$M/sps
FuzzSlabOps|./fuzz/slabfuzz|$M/slab
"
WIRE_TARGETS=FuzzReader,FuzzFrames

# A service's decoding paths: its package without the functions no wrapper
# call reaches (set-up, and the API a Go host or a test uses, such as
# alloc's pins, which only a Go host's calls create; ehframe's
# report of a libgcc_s that did not load). package | those functions
# ([file.go:]name)
DECODING="
service/dylib|AddProcessSymbol ProcessSymbols Handles
service/ehframe|FindFDE RegisterFrameAddr Registered Install
service/entry|
service/gdbjit|Snapshot LastEntry FormatLastEntry RegisterCodeCalls DescriptorAddr RegisterCodeAddr
service/jitdispatch|Install
service/memaccess|
alloc|NewMemoryManager Register Stats addStats pin.go:Pin pin.go:regionContainingLocked pin.go:jitAddrLocked pin.go:awaitPins pin.go:pinDeadline pin.go:pinWait pin.go:finishLater pin.go:Error action.go:Unwrap Run RunFinalizeActions RunDeallocActions release keepalive notRun NewSharedMemoryMapper RegisterSharedMemoryMapper shm.go:InstanceAddr shm.go:Initialize shm.go:SetPinWait shm.go:Pin shm.go:PinCode shm.go:pin shm.go:pinDeadline shm.go:finishLater errors.go:Unwrap
"

if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  dir=$(cd "$OUT" && pwd)
else
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi

start=$SECONDS
status=0
ran=()
for spec in $TARGETS; do
  IFS='|' read -r t pkg cover <<<"$spec"
  s=$SECONDS
  if "$GO" test -run "^${t}\$" -count=1 -coverpkg="$cover" -coverprofile="$dir/$t.out" "$pkg" >"$dir/$t.log" 2>&1; then
    if grep -q 'no tests to run' "$dir/$t.log"; then
      echo "warning: $pkg has no $t: skipped" >&2
      continue
    fi
    echo "ran $t ($pkg) in $((SECONDS - s))s" >&2
    ran+=("$t")
  else
    echo "FAIL: go test -run '^$t\$' $pkg" >&2
    cat "$dir/$t.log" >&2
    status=1
  fi
done

# The CA's read loop: from its func line to the closing brace.
ca=rt/simpleremote/ca.go
rl0=$(grep -n '^func (ca \*CA) readLoop(' "$ca" | cut -d: -f1 || true)
rl1=$(awk -v s="${rl0:-0}" 's && NR > s && /^}/ { print NR; exit }' "$ca")
WIRE="$SR/reader.go+$SR/frame.go"
if [ -n "$rl0" ]; then WIRE="$WIRE+$SR/ca.go:$rl0-$rl1"; fi

# funcRange dir [file.go:]name: file:first-last of func name (a method or
# not) in dir's non-test files, or in file.go.
funcRange() {
  local f l0 l1 files=("$1"/*.go) name=$2
  if [[ $name == *:* ]]; then files=("$1/${name%%:*}"); name=${name#*:}; fi
  for f in "${files[@]}"; do
    [[ $f == *_test.go ]] && continue
    l0=$(grep -nE "^func (\([^)]*\) )?$name[[(]" "$f" | head -1 | cut -d: -f1 || true)
    [ -n "$l0" ] || continue
    l1=$(awk -v s="$l0" 'NR > s && /^}/ { print NR; exit }' "$f")
    echo "$M/$f:$l0-$l1"
    return
  done
  echo "fuzz-cover: no func $2 in $1" >&2
  exit 1
}

# Report rows: section | label | targets | filters ('+'-joined: a package
# directory, a file, or file:firstline-lastline; '!' before one excludes
# it).
rows=$dir/rows
: >"$rows"
declare -A covering=()
for spec in $TARGETS; do
  IFS='|' read -r t _ cover <<<"$spec"
  [[ " ${ran[*]} " == *" $t "* ]] || continue
  for p in ${cover//,/ }; do
    echo "target|${p#$M/}|$t|$p" >>"$rows"
    covering[$p]=${covering[$p]:+${covering[$p]},}$t
  done
  if [[ ",$WIRE_TARGETS," == *",$t,"* ]]; then
    echo "target|  reader.go|$t|$SR/reader.go" >>"$rows"
    echo "target|  frame.go (header)|$t|$SR/frame.go" >>"$rows"
    if [ -n "$rl0" ]; then echo "target|  ca.go readLoop|$t|$SR/ca.go:$rl0-$rl1" >>"$rows"; fi
    echo "target|  wire (the three above)|$t|$WIRE" >>"$rows"
  fi
done
wt=$(printf '%s\n' "${ran[@]}" | grep -Fx -f <(tr , '\n' <<<"$WIRE_TARGETS") | paste -sd, || true)
for p in $(printf '%s\n' "${!covering[@]}" | sort); do
  echo "union|${p#$M/}|${covering[$p]}|$p" >>"$rows"
  if [ "$p" = "$SR" ] && [ -n "$wt" ]; then
    echo "union|  reader.go|$wt|$SR/reader.go" >>"$rows"
    echo "union|  frame.go (header)|$wt|$SR/frame.go" >>"$rows"
    if [ -n "$rl0" ]; then echo "union|  ca.go readLoop|$wt|$SR/ca.go:$rl0-$rl1" >>"$rows"; fi
    echo "union|  wire (the three above)|$wt|$WIRE" >>"$rows"
  fi
done

for spec in $(tr ' ' , <<<"$DECODING"); do
  IFS='|' read -r p fns <<<"$spec"
  [ -n "${covering[$M/$p]:-}" ] || continue
  filter=$M/$p
  for fn in ${fns//,/ }; do filter="$filter+!$(funcRange "$p" "$fn")"; done
  echo "decode|$p|${covering[$M/$p]}|$filter" >>"$rows"
done

profiles=()
for t in "${ran[@]}"; do profiles+=("$dir/$t.out"); done
[ ${#profiles[@]} -gt 0 ] || { echo "no profiles" >&2; exit 1; }

# Statement coverage from the raw profiles: a line is
# "file:l0.c0,l1.c1 numStmts count"; a block seen several times (in one
# profile or across a row's targets) counts once, covered if any count > 0.
awk -v rows="$rows" -v res="$dir/results" -v merged="$dir/merged.out" '
  FNR == 1 { t = FILENAME; sub(/.*\//, "", t); sub(/\.out$/, "", t); if (!mode) mode = $0; next }
  {
    k = $1; n[k] = $2; in_[t, k] = 1
    if ($3 > 0) hit[t, k] = 1
    if (!(k in mx) || $3 > mx[k]) mx[k] = $3
  }
  END {
    print mode > merged
    for (k in n) print k, n[k], mx[k] > merged
    for (k in n) {
      f = k; sub(/:[^:]*$/, "", f); file[k] = f
      d = f; sub(/\/[^\/]*$/, "", d); pdir[k] = d
      l = k; sub(/.*:/, "", l); sub(/\..*/, "", l); line[k] = l + 0
    }
    printf "%-26s %-30s %11s %7s\n", "target", "package / group", "statements", "cover"
    while ((getline r < rows) > 0) {
      split(r, a, "|"); nt = split(a[3], ts, ","); nf = split(a[4], fs, "+")
      if (a[1] != sec) {
        if (a[1] == "union") printf "\n%-26s %-30s %11s %7s\n", "union of targets", "package / group", "statements", "cover"
        if (a[1] == "decode") printf "\n%-26s %-30s %11s %7s\n", "union of targets", "decoding paths", "statements", "cover"
        sec = a[1]
      }
      tot = cov = 0
      for (k in n) {
        ok = 0; out = 0
        for (i = 1; i <= nf && !out; i++) {
          fl = fs[i]; lo = 0; neg = sub(/^!/, "", fl)
          if (match(fl, /:[0-9]+-[0-9]+$/)) {
            split(substr(fl, RSTART + 1), rg, "-"); lo = rg[1] + 0; hi = rg[2] + 0; fl = substr(fl, 1, RSTART - 1)
          }
          if (fl ~ /\.go$/) m = file[k] == fl && (!lo || (line[k] >= lo && line[k] <= hi))
          else m = pdir[k] == fl
          if (m && neg) out = 1
          else if (m) ok = 1
        }
        if (!ok || out) continue
        seen = h = 0
        for (i = 1; i <= nt; i++) { if ((ts[i], k) in in_) seen = 1; if ((ts[i], k) in hit) h = 1 }
        if (!seen) continue
        tot += n[k]; if (h) cov += n[k]
      }
      pct = tot ? 100 * cov / tot : 0
      who = a[1] != "target" ? (nt > 1 ? nt " targets" : a[3]) : a[3]
      printf "%-26s %-30s %5d/%-5d %6.1f%%\n", who, a[2], cov, tot, pct
      print a[1] "|" a[2] "|" a[3] "|" pct > res
    }
  }' "${profiles[@]}"

echo
echo "targets of each union row:"
grep '^union|' "$rows" | awk -F'|' '{ sub(/^ +/, "", $2); printf "  %-28s %s\n", $2, $3 }'

# Functions no target reaches, per package (cover -func of the merged profile).
echo
echo "functions with 0% coverage (no target reached them):"
"$GO" tool cover -func="$dir/merged.out" | awk -v m="$M/" '
  $1 == "total:" || $1 ~ /_test\.go:/ { next }
  {
    f = $1; sub(/:[0-9]+:$/, "", f); d = f; sub(/\/[^\/]*$/, "", d); sub(m, "", d)
    all[d]++
    if ($NF == "0.0%") { b = f; sub(/.*\//, "", b); l = $1; sub(/.*\.go:/, "", l); sub(/:$/, "", l)
      zero[d]++; list[d] = list[d] sprintf("    %s:%s %s\n", b, l, $2) }
  }
  END {
    for (d in all) order[++n] = d
    for (i = 2; i <= n; i++) for (j = i; j > 1 && order[j-1] > order[j]; j--) { x = order[j]; order[j] = order[j-1]; order[j-1] = x }
    for (i = 1; i <= n; i++) { d = order[i]; printf "  %s: %d of %d functions\n%s", d, zero[d] + 0, all[d], list[d] }
  }'

# Thresholds.
below() { awk -v p="$1" -v m="$2" 'BEGIN { exit !(p < m) }'; }
check() { # name minimum label [section]
  local p l=${3#"${3%%[! ]*}"}
  p=$(awk -F'|' -v l="$3" -v s="${4:-union}" '$1 == s && $2 == l { print $4 }' "$dir/results")
  if [ -z "$p" ]; then echo "MIN_$1: no coverage measured for $l" >&2; status=1
  elif below "$p" "$2"; then printf 'MIN_%s: %s at %.1f%% < %s%%\n' "$1" "$l" "$p" "$2" >&2; status=1; fi
}
if [ -n "${MIN_SPS:-}" ]; then check SPS "$MIN_SPS" sps; fi
if [ -n "${MIN_WIRE:-}" ]; then check WIRE "$MIN_WIRE" "  wire (the three above)"; fi
if [ -n "${MIN_SERVICES:-}" ]; then
  for p in ${SERVICES//,/ }; do check SERVICES "$MIN_SERVICES" "${p#$M/}"; done
fi
if [ -n "${MIN_DECODING:-}" ]; then
  for spec in $(tr ' ' , <<<"$DECODING"); do check DECODING "$MIN_DECODING" "${spec%%|*}" decode; done
fi
echo
echo "fuzz-cover: $((SECONDS - start))s${OUT:+, profiles in $dir}"
exit $status
