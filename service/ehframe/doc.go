// Package ehframe registers JIT'd .eh_frame sections with the process's
// unwinder, so C++ exceptions (and any other unwinding) work through
// JIT'd frames: LLVM 22's llvm_orc_registerEHFrameAllocAction and
// llvm_orc_deregisterEHFrameAllocAction (protocol.md §5.5), which
// llvm-jitlink attaches to every link graph with an .eh_frame when it
// runs without the ORC runtime.
//
// # Which unwinder
//
// Frames go to libgcc_s.so.1's __register_frame / __deregister_frame,
// looked up with dlsym on libgcc_s's own handle after dlopen'ing it
// RTLD_NOW|RTLD_GLOBAL: the unwinder libstdc++'s __cxa_throw uses, and
// the one JIT'd ORC-runtime code finds through the process handle. A
// private static copy would register frames the thrower never sees
// (protocol.md §7.1, §10). [Init] does the loading once per process;
// the first registration does it too.
//
// # Semantics
//
// Both actions take an SPSExecutorAddrRange covering the section
// (including its zero terminator) and return an SPSError; only the start
// is passed to libgcc, as the stock executor does. Beyond the stock
// executor, registrations are counted per start address: deregistering a
// section that is not registered returns an error instead of reaching
// libgcc's __deregister_frame, which aborts the process for unknown
// sections; a null start is refused the same way.
//
// # Concurrency
//
// The unwinder's registry is process-global, and so is this package's
// registration count: every function is safe for concurrent use, from any
// number of Sessions.
package ehframe
