#!/bin/sh
# Runs an arm64 Linux binary on this x86-64 host under QEMU user mode, with
# the private arm64 root (.ci/arm64-deps.sh) as its sysroot: used as
# `go test -exec` and as the -oop-executor wrapper in the arm64 suites.
# QEMU_LD_PREFIX (the root) is inherited, so arm64 children that are
# started through this script again find the same root.
: "${QEMU_LD_PREFIX:?set QEMU_LD_PREFIX to the arm64 root (see .ci/arm64.mk)}"
ORCRT_EXEC_WRAPPER=$(readlink -f "$0")
export ORCRT_EXEC_WRAPPER
export QEMU_LD_PREFIX
exec qemu-aarch64 "$@"
