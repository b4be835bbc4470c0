// Package e2e is orcrt-executor's end-to-end suite: it compiles real C and
// C++ programs with clang-22 and runs each through the stock LLVM 22
// controller, `llvm-jitlink -oop-executor=<executor>`, once with LLVM's own
// llvm-jitlink-executor and once with orcrt-executor, and requires the same
// exit code, stdout and (where deterministic) stderr, plus the expected
// values written in the case table, so that a regression shared by both
// executors cannot pass either.
//
// The suite needs Debian's llvm-22 and clang-22 packages (installed by
// .ci/deps.sh). Without them it skips, unless ORCRT_REQUIRE_LLVM=1 (set by
// `make test`), in which case it fails. ORCRT_E2E_EXECUTOR selects a
// prebuilt executor instead of building cmd/orcrt-executor.
//
// The same suite runs for arm64 executors on an x86-64 host
// (ORCRT_E2E_TARGET=aarch64, ORCRT_E2E_ARM64_ROOT=<arm64 root>; `make
// arm64-e2e`): the objects are compiled with --target=aarch64-linux-gnu,
// and both executors — orcrt-executor cross-built for arm64 and Debian's
// arm64 llvm-jitlink-executor — run under qemu-aarch64 from wrapper
// scripts given to the host's llvm-jitlink as -oop-executor. Cases whose
// outcome the target's hardware or ABI changes carry the target's
// expectation (see target_test.go). The test binary always runs on the
// host; built for arm64 (the unit tests under QEMU) every test skips.
package e2e
