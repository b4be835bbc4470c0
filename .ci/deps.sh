#!/usr/bin/env bash
# Installs what orcrt's build, tests and demo need on Debian 12 (bookworm):
# LLVM 22 (llvm-jitlink, clang-repl, the stock executor, clang-22, headers and
# the ORC runtime archive) and LLVM 14, 15, 16 and 19 (19's static libraries
# too). Runs apt-get only when something is missing and we are root;
# otherwise says exactly what to install. Also valgrind (the benchmark
# gate's instruction counts), linux-perf (the perf-support test) and
# clang-format-22 (the controller's style check).
set -euo pipefail

need_pkgs=()
[ -x /usr/lib/llvm-22/bin/llvm-jitlink ] || need_pkgs+=(llvm-22)
[ -x /usr/lib/llvm-22/bin/llvm-jitlink-executor ] || need_pkgs+=(llvm-22)
command -v clang-22 >/dev/null 2>&1 || need_pkgs+=(clang-22)
[ -x /usr/lib/llvm-22/bin/clang-repl ] || need_pkgs+=(clang-tools-22)
[ -f /usr/lib/llvm-22/include/llvm/ExecutionEngine/Orc/Shared/SimplePackedSerialization.h ] || need_pkgs+=(llvm-22-dev)
[ -f /usr/lib/llvm-22/lib/clang/22/lib/linux/liborc_rt-x86_64.a ] || need_pkgs+=(libclang-rt-22-dev)
# orcrt-jit-controller (package jit) compiles C and C++ with clang's libraries.
[ -f /usr/lib/llvm-22/include/clang/Driver/CreateInvocationFromArgs.h ] || need_pkgs+=(libclang-22-dev)
[ -e /usr/lib/llvm-22/lib/libclang-cpp.so ] || need_pkgs+=(libclang-cpp22-dev)
# make clang-format-check: the controller's C++ in LLVM's style.
command -v clang-format-22 >/dev/null 2>&1 || need_pkgs+=(clang-format-22)
# The older releases the dialects are tested against (e2e: llvm-jitlink,
# lli --remote-mcjit and their stock executors, objects from their clang;
# 16 and 19 ship an ORC runtime in libclang-rt-N-dev).
for v in 14 15 16 19; do
  [ -x /usr/lib/llvm-$v/bin/llvm-jitlink-executor ] || need_pkgs+=(llvm-$v)
  command -v clang-$v >/dev/null 2>&1 || need_pkgs+=(clang-$v)
done
for v in 16 19; do
  ls /usr/lib/llvm-$v/lib/clang/*/lib/linux/liborc_rt-x86_64.a >/dev/null 2>&1 || need_pkgs+=(libclang-rt-$v-dev)
done
# The identification tests link small controllers statically against LLVM
# 19's and 22's libraries (internal/staticctl); LLVM's --system-libs name zstd.
[ -f /usr/lib/llvm-19/lib/libLLVMOrcJIT.a ] || need_pkgs+=(llvm-19-dev)
dpkg -s libzstd-dev >/dev/null 2>&1 || need_pkgs+=(libzstd-dev)
command -v gcc >/dev/null 2>&1 || need_pkgs+=(gcc)
command -v make >/dev/null 2>&1 || need_pkgs+=(make)
# The benchmark gate counts instructions under cachegrind.
command -v valgrind >/dev/null 2>&1 || need_pkgs+=(valgrind)
# perf support: the e2e test profiles JIT'd code (perf record, perf inject --jit).
command -v perf >/dev/null 2>&1 || need_pkgs+=(linux-perf)
for extra in "$@"; do
  dpkg -s "$extra" >/dev/null 2>&1 || need_pkgs+=("$extra")
done

if [ ${#need_pkgs[@]} -eq 0 ]; then
  exit 0
fi
mapfile -t need_pkgs < <(printf '%s\n' "${need_pkgs[@]}" | sort -u)
if [ "$(id -u)" -ne 0 ]; then
  echo "orcrt: missing packages: ${need_pkgs[*]}" >&2
  echo "orcrt: install them with: sudo apt-get install -y ${need_pkgs[*]}" >&2
  exit 1
fi
echo "orcrt: installing ${need_pkgs[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${need_pkgs[@]}" >/dev/null
