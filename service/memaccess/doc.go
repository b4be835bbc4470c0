// Package memaccess implements the bootstrap memory-access wrapper
// functions (docs/protocol.md §5.3): the __llvm_orc_bootstrap_mem_*
// wrappers through which the controller reads and writes executor memory
// (LLVM 22's 13; the five writes of older dialects).
//
// They load and store at whatever addresses the controller names, as the
// stock executor does: the controller is trusted with the whole address
// space (README, "Trust boundary"). Accesses run with
// debug.SetPanicOnFault, so a fault ends the call with an out-of-band
// error instead of killing the process; writes before the faulting
// element have happened.
//
// Writes decode the whole argument first (undecodable arguments write
// nothing) and return SPSEmpty. Every integer and pointer element is one
// plain load or store of exactly its width, in Go, with no cgo call.
// Buffers are copied with memmove semantics; strings are read up to the
// first NUL. Reads allocate only as much as the argument implies or as
// memory is actually read. Inverted ranges and overflowing sizes are
// refused. The package assumes a 64-bit host.
//
// The wrappers are safe for concurrent use; the memory they touch is not
// synchronized with JIT'd code (the controller orders its accesses).
package memaccess
