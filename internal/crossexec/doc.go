// Package crossexec lets tests that run under user-mode emulation start
// other binaries built for the same GOARCH.
//
// orcrt's arm64 unit tests run on x86-64 hosts as `go test -exec
// .ci/qemu-arm64-exec.sh`. Without binfmt_misc an arm64 binary the test
// starts itself fails with ENOEXEC, and QEMU redirects open and stat into
// its sysroot but not execve (RATIONALE.md, "internal/crossexec"). The
// wrapper script exports its path as ORCRT_EXEC_WRAPPER; [Wrap] (and
// [Command]) then rewrite a command whose program is an ELF binary for
// this GOARCH (looked up in QEMU_LD_PREFIX first) to run through the
// wrapper, which execs QEMU in place (same pid, descriptors, signals and
// argv[0]). Everything else, and every command when ORCRT_EXEC_WRAPPER is
// unset, is left unchanged.
//
// Rule for tests: start a binary built for GOARCH with [Command],
// [CommandContext] or wiretest.StartExecutor, or pass it through [Wrap]
// when a script execs it; otherwise the arm64 CI job fails with "exec
// format error". Filter a signalled child's stderr with
// [StripEmulatorNotes].
//
// Concurrency: all functions are safe for concurrent use. They allocate
// only the returned command or argument slice, which the caller owns.
package crossexec
