# arm64 (AArch64) on an x86-64 host, under QEMU user mode. Included by the
# Makefile; `make arm64` runs it all, and `make test` does too (TEST_EXTRA).
#
#   make arm64-deps   qemu-user, the AArch64 cross toolchain, and a private
#                     arm64 root (Debian's arm64 libc, libstdc++, ..., its
#                     arm64 llvm-jitlink-executor and liborc_rt-aarch64.a,
#                     unpacked with dpkg -x, never installed) in ARM64_ROOT
#   make arm64-build  cross-builds every package and orcrt-executor for
#                     linux/arm64 with cgo (CC=aarch64-linux-gnu-gcc)
#   make arm64-unit   every package's tests, built for arm64 and run under
#                     qemu-aarch64 (go test -exec .ci/qemu-arm64-exec.sh)
#   make arm64-cpus   the cache/protection/native-call packages again under
#                     other QEMU CPU models (other cache line sizes)
#   make arm64-bench-smoke  every benchmark once under QEMU (their arm64
#                     code runs; the numbers mean nothing)
#   make arm64-e2e    the end-to-end suite: x86-64 llvm-jitlink drives the
#                     arm64 orcrt-executor and Debian's arm64 executor, both
#                     under qemu-aarch64, on the same AArch64 objects
#
# Emulation says nothing about speed: arm64 is gated on correctness, on
# the AllocsPerRun tests (part of arm64-unit) and on instruction counts
# (the instr:arm64 entries of bench/gate.txt, counted under QEMU by the
# qemuinsn plugin built here; make bench-gate runs them); the benchmarks
# otherwise run once (arm64-bench-smoke) to prove their arm64 code works.
# See README.md ("arm64") for recording a baseline on real hardware.

ARM64_ROOT ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/orcrt/arm64root
ARM64_OUT := bench/out/arm64
ARM64_ENV := GOOS=linux GOARCH=arm64 CGO_ENABLED=1 CC=aarch64-linux-gnu-gcc
ARM64_EXEC := $(CURDIR)/.ci/qemu-arm64-exec.sh

.PHONY: arm64 arm64-deps arm64-build arm64-unit arm64-cpus arm64-bench-smoke arm64-e2e arm64-baseline qemuinsn

arm64: arm64-build arm64-unit arm64-cpus arm64-bench-smoke arm64-e2e
	@echo "make arm64: all arm64 checks passed"

TEST_EXTRA += arm64

arm64-deps:
	@.ci/arm64-deps.sh $(ARM64_ROOT)

# qemuinsn, the QEMU TCG plugin that counts the guest instructions an
# arm64 program executes under qemu-aarch64: the benchmark gate's arm64
# instruction counts (.ci/bench.mk, bench/qemuinsn/qemuinsn.c). A host
# shared object, built with the host's C compiler.
QEMUINSN := bench/out/qemuinsn/libqemuinsn.so
HOST_CC ?= gcc
qemuinsn: $(QEMUINSN)
$(QEMUINSN): bench/qemuinsn/qemuinsn.c bench/qemuinsn/qemuinsn-api.h
	@mkdir -p $(dir $@)
	$(HOST_CC) -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden -o $@ $<

arm64-build: arm64-deps
	$(ARM64_ENV) $(GO) build ./...
	@mkdir -p $(ARM64_OUT)
	$(ARM64_ENV) $(GO) build -o $(ARM64_OUT)/orcrt-executor ./cmd/orcrt-executor
	@readelf -h $(ARM64_OUT)/orcrt-executor | grep -q 'Machine:.*AArch64' || { echo "arm64-build: not an AArch64 binary"; exit 1; }

# No -race: ThreadSanitizer refuses QEMU user mode's 39-bit guest address
# space ("unsupported VMA range"); -race runs on amd64 in `make unit`.
arm64-unit: arm64-deps
	QEMU_LD_PREFIX=$(ARM64_ROOT) ORCRT_REQUIRE_LLVM=1 $(ARM64_ENV) \
	  $(GO) test -exec $(ARM64_EXEC) -count=1 ./...

# The cache-maintenance, protection and native-call packages again with
# other CPU models, i.e. other CTR_EL0 line sizes: 64 and 256 bytes (the
# default CPU, "max", has 32).
ARM64_CPUS := cortex-a53 a64fx
arm64-cpus: arm64-deps
	@set -e; for cpu in $(ARM64_CPUS); do \
	  echo "== QEMU_CPU=$$cpu"; \
	  QEMU_CPU=$$cpu QEMU_LD_PREFIX=$(ARM64_ROOT) $(ARM64_ENV) \
	    $(GO) test -exec $(ARM64_EXEC) -count=1 ./arch/... ./slab/ ./alloc/ ./native/ ./service/entry/; \
	done

arm64-bench-smoke: arm64-deps
	QEMU_LD_PREFIX=$(ARM64_ROOT) $(ARM64_ENV) \
	  $(GO) test -exec $(ARM64_EXEC) -run '^$$' -bench . -benchtime=1x ./...

# -v for the per-case results in the CI log (the whole output is kept in
# bench/out/arm64/e2e.log and printed when something fails).
arm64-e2e: arm64-build
	@ORCRT_E2E_TARGET=aarch64 ORCRT_E2E_ARM64_ROOT=$(ARM64_ROOT) \
	  ORCRT_E2E_EXECUTOR=$(CURDIR)/$(ARM64_OUT)/orcrt-executor ORCRT_REQUIRE_LLVM=1 \
	  $(GO) test -count=1 -v ./cmd/orcrt-executor/e2e/ >$(ARM64_OUT)/e2e.log 2>&1; status=$$?; \
	  grep -E '^\s*--- |^(ok|FAIL|PASS)\b|setup_test|: outcome ' $(ARM64_OUT)/e2e.log; \
	  if [ $$status -ne 0 ]; then cat $(ARM64_OUT)/e2e.log; exit $$status; fi

# Records the arm64 benchmark baseline into profiles/baseline-arm64.txt,
# on real arm64 hardware only (not part of `make test`; under QEMU the
# numbers would measure the emulator). Compare a later run with
# `go tool benchstat profiles/baseline-arm64.txt new.txt`.
ARM64_BASELINE := profiles/baseline-arm64.txt
ARM64_BENCHCOUNT ?= 10
arm64-baseline: deps
	@[ "$$(uname -m)" = aarch64 ] || { echo "arm64-baseline: run it on a real arm64 machine (this is $$(uname -m))"; exit 1; }
	set -o pipefail; { echo "uname: $$(uname -srm)"; echo "pagesize: $$(getconf PAGESIZE)"; \
	  $(GO) test -run '^$$' -bench . -benchmem -count $(ARM64_BENCHCOUNT) -timeout 120m ./...; } | tee $(ARM64_BASELINE).tmp
	mv $(ARM64_BASELINE).tmp $(ARM64_BASELINE)
	$(GO) tool benchstat $(ARM64_BASELINE)
