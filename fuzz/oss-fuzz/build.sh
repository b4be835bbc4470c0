#!/usr/bin/env bash
# Builds the module's libFuzzer targets into $OUT, the layout OSS-Fuzz and
# ClusterFuzzLite expect: one executable per target, named as its native
# target (FuzzDecode, ...), and beside it FuzzX_seed_corpus.zip (the
# seeds the native target adds and its testdata/fuzz/FuzzX/ files, raw).
# Each is the target's libFuzzer shim (fuzz/<pkg>/libfuzzer) built as a
# c-archive with libFuzzer's instrumentation and linked with
# $LIB_FUZZING_ENGINE (see fuzz/internal/libfuzzer).
#
# Usage: OUT=dir fuzz/oss-fuzz/build.sh [TARGET...]
#   default every target `go run ./fuzz/internal/corpus targets` lists;
#   FuzzFloor builds the no-op target (the engine's own ceiling).
# FuzzLLVM (the LLVM oracle, fuzz/spsfuzz/llvmoracle) also needs LLVM 22's
# headers and libLLVM-22 (Debian's llvm-22-dev; LLVM_LIBDIR, default
# /usr/lib/llvm-22/lib) and a clang $CXX: cgo compiles the oracle's C++
# into the archive with libFuzzer's instrumentation.
# Environment (OSS-Fuzz sets the first three): CXX (default clang++),
# CXXFLAGS, LIB_FUZZING_ENGINE (default -fsanitize=fuzzer), GO (default
# go), WORK (the archives; default a temporary directory).
#
# The instrumentation covers the module's packages (the code under test
# and the harnesses, with the generic instantiations they compile), not
# the standard library: libFuzzer's comparison hooks in fmt, strconv,
# reflect, ... cost FuzzDecode two thirds of its rate for no coverage of
# the module's code. FuzzFrames leaves its harness out too (wirefuzz,
# memconn): every integer comparison in instrumented code calls
# libFuzzer's hook through the runtime's stack-switching trampoline,
# about 40 ns, and the chunked reader that feeds the Reader a byte at a
# time cost a fifth of the target's time for counters of the reference
# parser, which mirror the Reader's (a minute's corpus reaches the same
# coverage either way; FuzzReader's harness counters, which wrapper a
# session called and what it wrote, cost it nothing measurable and
# stay). -tags libfuzzer compiles the runtime's libFuzzer hooks
# (runtime/libfuzzer.go), which register the counters with libFuzzer:
# without it libFuzzer sees no coverage.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${OUT:?set OUT to the output directory}"
CXX=${CXX:-clang++}
CXXFLAGS=${CXXFLAGS:-}
LIB_FUZZING_ENGINE=${LIB_FUZZING_ENGINE:--fsanitize=fuzzer}
GO=${GO:-go}
M=github.com/orcgo/orcrt
mkdir -p "$OUT"
if [ -z "${WORK:-}" ]; then
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"

# The glue (LLVMFuzzerTestOneInput, the Failer) is not instrumented. The
# last pattern a package matches sets its flags.
GCFLAGS=(-gcflags="$M/...=-d=libfuzzer" -gcflags="$M/fuzz/internal/libfuzzer=" -gcflags="$M/fuzz/internal/target=")

"$GO" build -o "$WORK/corpus" ./fuzz/internal/corpus
list=$("$WORK/corpus" targets)
want=("$@")
if [ ${#want[@]} -eq 0 ]; then
  mapfile -t want < <(awk '{ print $1 }' <<<"$list")
fi
for t in "${want[@]}"; do
  if [ "$t" = FuzzFloor ]; then
    pkg=./fuzz/spsfuzz/libfuzzer
  else
    pkg=$(awk -v t="$t" '$1 == t { print $2 }' <<<"$list")
    [ -n "$pkg" ] || { echo "build.sh: no libFuzzer target $t" >&2; exit 2; }
  fi
  gcflags=("${GCFLAGS[@]}")
  if [ "$t" = FuzzFrames ]; then
    # Only the Reader (see above).
    gcflags+=(-gcflags="$M/fuzz/wirefuzz=" -gcflags="$M/fuzz/internal/memconn=")
  fi
  # FuzzLLVM's shim compiles LLVM's C++ (llvmoracle/oracle.cpp) into the
  # archive with cgo ($CXX, LLVM 22's headers) and needs libLLVM-22.
  libs=()
  cgoflags=${CGO_CXXFLAGS:-}
  cov=-fsanitize-coverage=inline-8bit-counters,indirect-calls,trace-cmp,pc-table
  if [ "$t" = FuzzLLVM ]; then
    # -fsanitize=fuzzer-no-link's coverage, spelled out: clang refuses it
    # beside the minimal UBSan runtime, whose bool check marks LLVM's
    # undefined answers (see oracle.cpp).
    cgoflags="-O1 -fsanitize=bool -fsanitize-minimal-runtime $cov"
    llvmlib=${LLVM_LIBDIR:-/usr/lib/llvm-22/lib}
    [ -e "$llvmlib/libLLVM-22.so" ] || { echo "build.sh: FuzzLLVM needs llvm-22-dev ($llvmlib/libLLVM-22.so)" >&2; exit 2; }
    libs=(-L"$llvmlib" -lLLVM-22 -Wl,-rpath,"$llvmlib")
  fi
  CXX=$CXX CGO_CXXFLAGS=$cgoflags "$GO" build -buildmode=c-archive -tags libfuzzer "${gcflags[@]}" \
    -ldflags="-X=main.name=$t" -o "$WORK/$t.a" "$pkg"
  # shellcheck disable=SC2086 # CXXFLAGS and LIB_FUZZING_ENGINE are flag lists
  "$CXX" $CXXFLAGS $LIB_FUZZING_ENGINE "$WORK/$t.a" -o "$OUT/$t" "${libs[@]}" -lpthread
  if [ "$t" != FuzzFloor ]; then
    rm -f "$OUT/${t}_seed_corpus.zip"
    "$WORK/corpus" seeds "$t" "$OUT/${t}_seed_corpus.zip"
  fi
  echo "built $OUT/$t" >&2
done
