// Package executor assembles a complete ORC executor on an rt.Session:
// the services of the dialect of any LLVM release orcrt speaks (package
// rt/dialect), advertised in Setup and served over a connection.
// Everything else a host needs lives in its own package: calling JIT'd
// code in package call ([Func] and the typed forms here are deprecated
// aliases of it), finding it by name behind [Executor.Lookup]. It provides
// what the stock llvm-jitlink-executor and lli-child-target do, including
// -orc-runtime; cmd/orcrt-executor is a thin main over it, and Go hosts
// embed it with [Open] (host symbols, [Executor.Lookup],
// [Executor.Func], [EndDetach]). A host that runs its own controller
// program (package jit) names its controller calls and wrappers in
// [Options] ([Executor.ControllerFunc], [Executor.ServeFiles]).
//
// [New] builds a Session (rt.GoRunner: every incoming call on its own
// goroutine) with the jit-dispatch, memory manager, dylib manager,
// memory-access, run-wrapper, EH-frame, JITLoaderGDB and shared-memory
// mapper services (packages service/... and alloc), advertised in Setup
// under the dialect's bootstrap names (docs/protocol.md §3.2, §9).
// [Executor.Serve] attaches the SimpleRemoteEPC wire protocol over a
// connection and serves until the session ends.
//
// # Ending (docs/protocol.md §8)
//
// On end of input or Hangup the connection is closed at once, pending
// jit-dispatch calls fail with "disconnecting", in-flight calls are waited
// for, the services shut down in reverse order and libc's stdio is
// flushed; Serve returns nil. A fatal protocol error ends the session the
// same way and is returned with the stock executor's message as its
// Error() text, joined with errors services report while shutting down.
// With Options.DrainTimeout set, Serve gives up on calls still running in
// JIT'd code that long after the connection ended and returns a
// *DrainTimeoutError.
//
// # Process-global state
//
// An Executor serves one connection; several may coexist in a process.
// Process-wide by nature are: [PrepareProcess] (libstdc++, libgcc_s and
// libm loaded RTLD_GLOBAL, never unloaded; Serve runs it once Setup is
// out, before any incoming call), the GDB JIT descriptor, libgcc's
// EH-frame registry, the jit-dispatch context slots of package native, and
// fflush(NULL).
//
// # Concurrency
//
// New, Serve, Close and the accessors are safe for concurrent use; Serve
// may be called once.
package executor
