#!/usr/bin/env bash
# build.sh OUTPUT [SOURCE]: builds orcrt-jit-controller (controller.cpp,
# clang.cpp and the rest, with clang's libraries), or another C++ program
# against LLVM 22 (the benchmarks' in-process reference), with Debian's
# llvm-22-dev, libclang-22-dev and clang++-22. Without them it names the
# packages to install and exits 1.
set -euo pipefail
[[ $# -eq 1 || $# -eq 2 ]] || { echo "usage: $0 OUTPUT [SOURCE]" >&2; exit 2; }
out=$1
here="$(cd "$(dirname "$0")" && pwd)"
if [[ $# -eq 2 ]]; then
  srcs=("$2")
  libs=()
else
  srcs=("$here/controller.cpp" "$here/clang.cpp" "$here/facts.cpp" "$here/memory.cpp" "$here/transport.cpp" "$here/worker.cpp")
  libs=(-lclang-cpp)
  if [[ ! -f /usr/lib/llvm-22/include/clang/Driver/CreateInvocationFromArgs.h ]]; then
    echo "orcrt-jit-controller: needs clang's headers and libraries: apt-get install libclang-22-dev libclang-cpp22-dev" >&2
    exit 1
  fi
fi
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
"$cxx" -O2 $("$llvm_config" --cxxflags) -DORCRT_LLVM_PREFIX="\"$("$llvm_config" --prefix)\"" \
  "${srcs[@]}" -o "$tmp" $("$llvm_config" --ldflags) "${libs[@]}" -lLLVM-22 \
  -Wl,-rpath,"$("$llvm_config" --libdir)"
mv -f "$tmp" "$out"
