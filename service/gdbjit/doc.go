// Package gdbjit implements the GDB JIT interface on the executor side:
// the exported C symbols __jit_debug_descriptor and
// __jit_debug_register_code that gdb and lldb watch, LLVM 22's
// llvm_orc_registerJITLoaderGDBAllocAction (docs/protocol.md §5.5) and
// LLVM 14-19's llvm_orc_registerJITLoaderGDBWrapper ([LegacyWrapper]), so a
// debugger attached to the executor sees JIT'd code with its symbols.
//
// The action pushes a new entry at the head of the descriptor's list and
// notifies the debugger, under one process-wide lock. Entries are never
// removed (LLVM 22 has no deregistration action). An inverted range is
// refused; any other address is accepted, as by the stock executor. A
// readable debug object's function symbols ([FuncSymbols], parsed as
// hostile input) are also given to native/jitsyms, which names JIT'd code in
// crash reports and profiles.
//
// A process has exactly one __jit_debug_descriptor, so the state is
// process-global and shared by every Session; a program that also links
// another GDB JIT implementation (libLLVM's) must not use both. The
// symbols are in the executable's dynamic symbol table (-rdynamic), so
// the process handle resolves them. Every function is safe for concurrent
// use.
package gdbjit
