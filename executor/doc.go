// Package executor assembles a complete LLVM 22 compatible ORC executor on
// an rt.Session: everything the stock llvm-jitlink-executor 22.1.8
// provides to `llvm-jitlink -oop-executor`, so C and C++ programs link and
// run in it exactly as they do in the stock executor, including
// -orc-runtime (static constructors, exceptions, thread_local, lazy
// linking with jit-dispatch back to the controller). cmd/orcrt-executor is
// a thin main over it; Go JIT hosts can embed it too.
//
// # What it serves
//
// [New] builds a Session (rt.GoRunner: every incoming call on its own
// goroutine, unbounded, so calls blocked in JIT'd code or in jit-dispatch
// never starve the calls that unblock them) with these services, and
// advertises them in Setup under the exact LLVM 22 bootstrap names
// (protocol.md §3.2), 34 symbols with unique non-zero addresses and an
// empty bootstrap map, as the stock executor:
//
//   - jit-dispatch context and function (package jitdispatch);
//   - the memory manager (package alloc, SimpleExecutorMemoryManager);
//   - the dylib manager (package dylib);
//   - the 13 memory-access wrappers (package memaccess);
//   - run_as_main / run_as_void_function / run_as_int_function (package
//     entry), and calls of JIT'd wrapper functions by address (the
//     Session's unknown-target handler, entry.CallJITWrapper);
//   - the EH-frame register/deregister actions (package ehframe);
//   - the JITLoaderGDB action (package gdbjit);
//   - the shared-memory mapper (package alloc; unless
//     Options.NoSharedMemory).
//
// [Executor.Serve] attaches the SimpleRemoteEPC wire protocol (package
// simpleremote) over a connection, sends Setup, and serves until the
// session ends.
//
// # Ending (protocol.md §8)
//
// On end of input or Hangup the connection is closed at once (the
// controller must see end-of-file promptly), pending jit-dispatch calls
// fail with "disconnecting", in-flight calls are waited for, the services
// shut down in reverse order (the memory manager releases every remaining
// reservation, running its dealloc actions), and libc's stdio is flushed
// (fflush(NULL)), since JIT'd programs' output sits in libc's buffers.
// Serve then returns nil. A fatal protocol error ends the session the
// same way and is returned with the stock executor's message as its
// Error() text (for "<argv0>: <message>"); errors reported by services
// while shutting down are joined to it, as the stock executor joins them.
// In-flight calls are waited for without limit, as by the stock executor,
// unless Options.DrainTimeout is set: then Serve gives up on calls still
// running in JIT'd code that long after the connection ended and returns
// a *DrainTimeoutError, leaving the services up until they return (see
// drain.go; orcrt-executor then exits).
//
// # Process-global state
//
// An Executor serves one connection; several may coexist in a process.
// These parts are process-wide by nature: [PrepareProcess] (libstdc++,
// libgcc_s and libm loaded RTLD_GLOBAL, so JIT'd code and the ORC runtime
// resolve them through the process handle — never unloaded; Serve starts
// it in the background once Setup is out, and no incoming call runs
// before it is done); the GDB JIT
// descriptor (package gdbjit: one per process); the EH-frame registry of
// libgcc (package ehframe); the jit-dispatch context slots (package
// native, one per Executor until it shuts down); and fflush(NULL), which
// flushes all of libc's streams. Everything else belongs to the Executor.
//
// # Concurrency
//
// New, Serve, Close and the accessors are safe for concurrent use; Serve
// may be called once.
package executor
