// Package fatalsig makes a Go executor process die from fatal signals in
// native (JIT'd) code the way a C program does, as the stock
// llvm-jitlink-executor does: killed by the signal itself, so whoever
// waits for it sees the same wait status, instead of the Go runtime's
// goroutine dump and exit status 2.
//
// Linking the package installs, from a C constructor that runs before the
// Go runtime starts, handlers for SIGSEGV, SIGBUS and SIGFPE and a silent
// one for SIGPIPE, which the Go runtime forwards to for faults in non-Go
// code; faults in Go code stay Go's (recoverable panics,
// debug.SetPanicOnFault). [Install] also takes SIGILL and SIGTRAP and
// makes SIGABRT default-fatal. A SIGPIPE in non-Go code kills the process
// silently; one from a Go write to a vanished controller is ignored, so
// the write fails with EPIPE and the session ends in order. The handler
// writes one line starting with "orcrt-executor: " to stderr (the signal,
// the faulting address and, on Linux, the faulting instruction's address
// as ", pc 0x...", then, when native/jitsyms names it, " in f+0x.., called
// from g+0x.., ..."), restores the
// default action and re-raises; nothing is flushed. RATIONALE.md
// ("native/fatalsig") explains the design.
//
// Signal dispositions are per process: only executables should link this
// package. Install is idempotent and safe for concurrent use.
package fatalsig
