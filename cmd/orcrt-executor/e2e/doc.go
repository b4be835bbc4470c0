// Package e2e is orcrt-executor's end-to-end suite: it compiles real C and
// C++ programs with clang-22 and runs each through `llvm-jitlink
// -oop-executor=<executor>` with LLVM's own llvm-jitlink-executor and with
// orcrt-executor, requiring the same exit code, stdout and (where
// deterministic) stderr, plus the expected values of the case table.
//
// Without Debian's llvm-22 and clang-22 it skips, unless
// ORCRT_REQUIRE_LLVM=1 (`make test`). ORCRT_E2E_EXECUTOR selects a
// prebuilt executor. ORCRT_E2E_TARGET=aarch64 (with ORCRT_E2E_ARM64_ROOT;
// `make arm64-e2e`) runs the suite for arm64 executors under qemu-aarch64;
// cases whose outcome the target changes carry its expectation
// (target_test.go). Built for arm64 itself, every test skips.
package e2e
