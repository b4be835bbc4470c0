// Package ehframe registers JIT'd .eh_frame sections with the process's
// unwinder, so C++ exceptions work through JIT'd frames: LLVM 22's
// llvm_orc_registerEHFrameAllocAction and
// llvm_orc_deregisterEHFrameAllocAction (docs/protocol.md §5.5).
//
// Frames go to libgcc_s.so.1's __register_frame / __deregister_frame,
// looked up on libgcc_s's own handle after dlopen'ing it
// RTLD_NOW|RTLD_GLOBAL: the unwinder libstdc++'s __cxa_throw and the ORC
// runtime use (docs/protocol.md §7.1). [Init] does the loading once per
// process; the first registration does it too.
//
// Only the range's start is passed to libgcc, as the stock executor does.
// Registrations are counted per start address: deregistering a section
// that is not registered, or a null start, is an error instead of
// libgcc's abort.
//
// The unwinder's registry and this package's count are process-global;
// every function is safe for concurrent use, from any number of Sessions.
package ehframe
