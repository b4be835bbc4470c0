#!/usr/bin/env bash
# build.sh OUTPUT: builds the C++ controller (csrc/driver.cpp) against
# Debian's llvm-22-dev. Without LLVM 22 or clang++-22 it says so and exits
# 0 without OUTPUT, so callers test for the binary.
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 OUTPUT" >&2; exit 2; }
out=$1
src="$(cd "$(dirname "$0")" && pwd)/csrc/driver.cpp"
llvm_config=$(command -v llvm-config-22 || echo /usr/lib/llvm-22/bin/llvm-config)
cxx=$(command -v clang++-22 || echo /usr/lib/llvm-22/bin/clang++)
if [[ ! -x $llvm_config || ! -f /usr/lib/llvm-22/include/llvm/ExecutionEngine/Orc/SimpleRemoteEPC.h ]]; then
  echo "cppdriver: skipped: llvm-22-dev not installed (apt-get install llvm-22-dev)"
  exit 0
fi
if [[ ! -x $cxx ]]; then
  echo "cppdriver: skipped: clang++-22 not installed (apt-get install clang-22)"
  exit 0
fi
mkdir -p "$(dirname "$out")"
# shellcheck disable=SC2046 # llvm-config prints several flags
"$cxx" -O2 $("$llvm_config" --cxxflags) "$src" -o "$out" \
  $("$llvm_config" --ldflags) -lLLVM-22 -Wl,-rpath,"$("$llvm_config" --libdir)"
