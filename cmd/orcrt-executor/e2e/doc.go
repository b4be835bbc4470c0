// Package e2e is orcrt-executor's end-to-end suite. For each installed
// LLVM release (22, 19, 16, 15, 14) it compiles real C and C++ programs
// with that release's clang, as its users would, and runs each through
// that release's `llvm-jitlink -oop-executor=<executor>` (pipes, TCP,
// shared memory) with the release's own llvm-jitlink-executor and with
// orcrt-executor, requiring the same exit code, stdout and (normalized)
// stderr. With LLVM 22 both must also meet the case table's expected
// values; with an older release a case its stock executor fails must be
// passed by orcrt or failed the same way (exit code, executor exit
// status, the first line of stderr with paths, process ids and addresses
// normalized). In TCP mode the executors' own exit status and stderr are
// compared too. Before LLVM 22 a run showing the controller's teardown
// race where the other executor's does not is run again (runCase). The
// suite also runs `lli --remote-mcjit` of every release against
// lli-child-target (held to the same rule), clang-repl 22 over pipes
// and shared memory, and LLVM 22's own controller writing 1 MiB and
// reading it back (bench/cppdriver, over pipes and TCP). Each release logs a line "LLVM N <client>: stock
// passed X/Y, orcrt passed Z/Y".
//
// Without Debian's packages it skips, unless ORCRT_REQUIRE_LLVM=1 (`make
// test`). ORCRT_E2E_EXECUTOR selects a prebuilt executor.
// ORCRT_E2E_TARGET=aarch64 (with ORCRT_E2E_ARM64_ROOT; `make arm64-e2e`)
// runs the LLVM 22 suite for arm64 executors under qemu-aarch64; cases
// whose outcome the target changes carry its expectation
// (target_test.go). Built for arm64 itself, every test skips.
package e2e
