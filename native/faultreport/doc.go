// Package faultreport names the JIT'd code a fatal signal comes from in a
// Go host whose runtime keeps its own signal handling: one line on
// stderr, then the Go runtime's crash as before (goroutine stacks, exit
// status 2). Package jit installs it at Start.
//
// [Install], once the runtime runs, puts a handler in front of the one in
// place (Go's) for SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP and SIGABRT,
// with SA_ONSTACK as the runtime requires of other handlers. For a fault
// at a pc native/jitsyms names, or a SIGABRT this process raised (abort)
// with a JIT'd caller on the stack, it writes one line starting with the
// prefix: the signal, the faulting address, the pc, the function as
// name+offset with its module, the JIT'd callers a stack scan finds.
// Then, and for every other signal without a line, it calls the saved
// handler with the same arguments, so the runtime does what it would have
// done: Go's nil-pointer panics and debug.SetPanicOnFault stay
// recoverable. A saved default action kills the process by the signal; a
// saved SIG_IGN ignores a signal sent or raised and kills on a fault, as
// the kernel would. RATIONALE.md ("The sidecar JIT") says what of the
// runtime this relies on.
//
// Executables linking native/fatalsig, which die by the signal, do not
// need it. os/signal's Ignore(syscall.SIGABRT) replaces the handler for
// SIGABRT; os/signal changes none of the others.
//
// Install is idempotent and safe for concurrent use; the handler is
// async-signal-safe and allocates nothing.
package faultreport
