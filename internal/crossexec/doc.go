// Package crossexec lets tests that run under user-mode emulation start
// other binaries built for the same GOARCH.
//
// orcrt's arm64 unit tests run on x86-64 hosts as `go test -exec
// .ci/qemu-arm64-exec.sh`: each test binary is an arm64 program run by
// qemu-aarch64. Without binfmt_misc the kernel cannot execute an arm64
// binary the test starts itself (a re-exec of os.Executable, a freshly
// built orcrt-executor, Debian's arm64 llvm-jitlink-executor): execve
// fails with ENOEXEC. QEMU also does not redirect the path of an execve
// into its sysroot (QEMU_LD_PREFIX), while it does redirect open and
// stat, so a test that checks /usr/lib/llvm-22/bin/llvm-jitlink-executor
// exists sees the arm64 one in the sysroot but would execute the host's.
//
// The wrapper script exports its own path as ORCRT_EXEC_WRAPPER. [Wrap]
// (and [Command]) then rewrite a command whose program is an ELF binary
// for this GOARCH (looked up in QEMU_LD_PREFIX first, as QEMU would for
// open) to run through the wrapper. Everything else — host tools such as
// go, cc or /bin/sh, missing files, non-ELF files — and every command when
// ORCRT_EXEC_WRAPPER is unset (native runs) is left unchanged, so native
// behaviour, including exec errors, is exactly as without this package.
//
// The wrapper execs QEMU in place, so the started process keeps its pid,
// its inherited descriptors and its signals, and QEMU's -0 option keeps
// the argv[0] the caller asked for (the path as given, not the sysroot's).
//
// Rule for tests: a test that starts a binary built for GOARCH (itself, a
// freshly built orcrt-executor, the stock executor) starts it with
// [Command], [CommandContext] or wiretest.StartExecutor (which calls
// [Wrap]), or passes it through [Wrap] when it writes a script that execs
// it; otherwise it fails with "exec format error" in the arm64 CI job.
// A test that checks a child's stderr after the child died by a signal
// filters it with [StripEmulatorNotes].
//
// Concurrency: all functions are safe for concurrent use. They allocate
// only the returned command or argument slice, which the caller owns.
package crossexec
