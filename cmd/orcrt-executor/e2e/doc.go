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
package e2e
