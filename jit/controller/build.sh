#!/usr/bin/env bash
# build.sh OUTPUT [SOURCE]: builds orcrt-jit-controller (controller.cpp),
# or another C++ program against LLVM 22 (the benchmarks' in-process
# reference), with Debian's llvm-22-dev and clang++-22. Without them it
# names the packages to install and exits 1.
set -euo pipefail
[[ $# -eq 1 || $# -eq 2 ]] || { echo "usage: $0 OUTPUT [SOURCE]" >&2; exit 2; }
out=$1
src=${2:-"$(cd "$(dirname "$0")" && pwd)/controller.cpp"}
llvm_config=$(command -v llvm-config-22 || echo /usr/lib/llvm-22/bin/llvm-config)
cxx=$(command -v clang++-22 || echo /usr/lib/llvm-22/bin/clang++)
if [[ ! -x $llvm_config || ! -f /usr/lib/llvm-22/include/llvm/ExecutionEngine/Orc/LLJIT.h ]]; then
  echo "orcrt-jit-controller: needs LLVM 22's headers and libraries: apt-get install llvm-22-dev" >&2
  exit 1
fi
if [[ ! -x $cxx ]]; then
  echo "orcrt-jit-controller: needs clang++-22: apt-get install clang-22" >&2
  exit 1
fi
mkdir -p "$(dirname "$out")"
tmp="$out.tmp.$$"
# shellcheck disable=SC2046 # llvm-config prints several flags
"$cxx" -O2 $("$llvm_config" --cxxflags) "$src" -o "$tmp" \
  $("$llvm_config" --ldflags) -lLLVM-22 -Wl,-rpath,"$("$llvm_config" --libdir)"
mv -f "$tmp" "$out"
