// Package fatalsig makes a Go executor process die from fatal signals in
// native (JIT'd) code the way a C program does, as the stock
// llvm-jitlink-executor does: killed by the signal itself, so whoever
// waits for it (llvm-jitlink, a test harness) sees the same wait status.
// Without it, the Go runtime turns a fault in JIT'd code into a goroutine
// dump and exit status 2.
//
// Linking the package installs, from a C constructor that runs before the
// Go runtime initializes, SA_SIGINFO|SA_ONSTACK handlers for SIGSEGV,
// SIGBUS and SIGFPE, and a silent one for SIGPIPE. The Go runtime keeps
// them as the handlers to forward to: faults in Go code are still Go's
// (nil dereferences panic and can be recovered, debug.SetPanicOnFault
// works), while faults in non-Go code (a cgo call into JIT'd code, or a
// thread JIT'd code created) reach this package's handler. [Install], called once the program runs, also takes
// SIGILL and SIGTRAP (which the Go runtime never forwards; Go code does
// not raise them), makes SIGABRT default-fatal — abort() in JIT'd code
// (for example std::terminate) then kills the process by SIGABRT, as in
// C. A SIGPIPE raised in non-Go code (JIT'd code writing to a broken
// stdout, on any thread) kills the process silently as it kills a C
// program; one raised by a write in Go code — the executor writing to a
// controller that went away — is ignored by the Go runtime, the write
// fails with EPIPE and the session ends in order ("Broken pipe": in-flight
// calls finish, services shut down, stdio is flushed). The stock executor
// dies by SIGPIPE in that case.
//
// The handler writes exactly one line, starting with "orcrt-executor: ",
// to stderr (fd 2, with write(2): async-signal-safe), restores the
// default action and re-raises the signal. Nothing is flushed: like the
// stock executor, output still buffered in the JIT'd program's stdio is
// lost.
//
// # Process-global state
//
// Signal dispositions are per process. Only executables should link this
// package (a Go JIT host embedding package executor decides for itself);
// Install is idempotent and safe for concurrent use.
package fatalsig
