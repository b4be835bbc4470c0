#!/usr/bin/env bash
# build.sh OUTPUT RELEASE: links csrc/controller.cpp statically against
# LLVM RELEASE's libraries (Debian's llvm-RELEASE-dev: llvm-config-RELEASE
# --link-static), so that the program maps no libLLVM. Without them it
# names the package to install and exits 1.
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 OUTPUT RELEASE" >&2; exit 2; }
out=$1 n=$2
src="$(cd "$(dirname "$0")" && pwd)/csrc/controller.cpp"
llvm_config=/usr/lib/llvm-$n/bin/llvm-config
if [[ ! -x $llvm_config || ! -f /usr/lib/llvm-$n/lib/libLLVMOrcJIT.a ]]; then
  echo "orcrt-static-controller: needs LLVM $n's static libraries: apt-get install llvm-$n-dev" >&2
  exit 1
fi
cxx=$(command -v "clang++-$n" || command -v clang++-22 || command -v c++) ||
  { echo "orcrt-static-controller: needs a C++ compiler: apt-get install clang-$n" >&2; exit 1; }
# gold links the ~70 archives several times faster than ld.bfd.
ld=()
if command -v ld.gold >/dev/null; then ld=(-fuse-ld=gold); fi
mkdir -p "$(dirname "$out")"
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
# shellcheck disable=SC2046 # llvm-config prints several flags
"$cxx" -O1 $("$llvm_config" --cxxflags) "$src" -o "$tmp" "${ld[@]}" -Wl,--gc-sections -s \
  $("$llvm_config" --ldflags) $("$llvm_config" --link-static --libs orcjit) \
  $("$llvm_config" --link-static --system-libs)
mv -f "$tmp" "$out"
