// Package memaccess implements LLVM 22's bootstrap memory-access wrapper
// functions (protocol.md §5.3): the 13 __llvm_orc_bootstrap_mem_* wrappers
// through which the controller reads and writes executor memory, for
// example to patch a lazy-linking stub pointer while JIT'd code waits
// (mem_write_pointers).
//
// # Trust boundary
//
// These wrappers store to and load from whatever addresses the controller
// names, with no validation, exactly as the stock executor does: the
// controller is trusted with the executor's whole address space (upstream
// calls this a VettedPeer). Any process that can speak the protocol can
// therefore read or corrupt any memory of the executor, including the Go
// heap. Only connect controllers you would let ptrace the process.
//
// What this package adds over the stock executor is containment of
// accidents: the accesses run with debug.SetPanicOnFault, so an access
// to unmapped or protected memory ends the call with an out-of-band error
// naming the fault (an empty Result on the LLVM 22 wire) instead of
// killing the process. Writes before the faulting element have happened.
//
// # Semantics
//
// Writes decode the whole argument first (undecodable arguments write
// nothing and answer with an out-of-band error) and return SPSEmpty, a
// zero-length result. Every uintN and pointer element is one plain
// (non-atomic) load or store of exactly the element's width, done in Go
// through unsafe: no cgo call per element. Buffers are copied with
// memmove semantics. Strings are read up to, not including, the first NUL
// byte. Reads allocate only as much as the argument length implies
// (uintN/pointers) or as memory is actually read (buffers, strings).
// Inverted ranges and sizes that overflow are refused with an out-of-band
// error. Addresses are 64-bit; the package assumes a 64-bit host.
//
// # Concurrency
//
// The wrappers are safe for concurrent use; the memory they touch is not
// synchronized with JIT'd code (the controller orders its accesses, as
// with the stock executor).
package memaccess
