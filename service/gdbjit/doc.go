// Package gdbjit implements the GDB JIT interface on the executor side:
// the exported C symbols __jit_debug_descriptor and
// __jit_debug_register_code that gdb and lldb watch, and LLVM 22's
// llvm_orc_registerJITLoaderGDBAllocAction (protocol.md §5.5), which
// llvm-jitlink attaches to link graphs of objects with debug info so a
// debugger attached to the executor sees JIT'd code with its symbols.
//
// # Semantics
//
// The action (SPSError(SPSExecutorAddrRange DebugObj, bool
// AutoRegisterCode)) allocates a jit_code_entry {next, prev,
// symfile_addr = Start, symfile_size = End-Start}, pushes it at the head
// of __jit_debug_descriptor.first_entry (fixing the old head's prev), sets
// relevant_entry to it and action_flag to JIT_REGISTER_FN, and, if
// AutoRegisterCode, calls __jit_debug_register_code, the no-op function a
// debugger breakpoints. All of it happens under one process-wide lock.
// Entries are never removed (LLVM 22 has no deregistration action); the
// debug objects they point to are not read by the executor. An inverted
// range is refused; any other address is accepted, as by the stock
// executor.
//
// # Process-global state
//
// A process has exactly one __jit_debug_descriptor (debuggers find it by
// name), so this package's state is process-global and shared by every
// Session; a program that also links another GDB JIT implementation (for
// example libLLVM's) must not use both. The symbols are exported in the
// executable's dynamic symbol table (the package links with -rdynamic),
// so the dylib manager's process handle resolves them, as with the stock
// executor. Every function is safe for concurrent use.
package gdbjit
