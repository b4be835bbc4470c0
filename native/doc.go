// Package native is the only place orcrt calls JIT'd (or any C-ABI) code.
// It uses cgo.
//
// [CallWrapper] calls a wrapper function or allocation action
// (CWrapperFunctionBuffer fn(const char*, size_t), docs/protocol.md §4.1)
// and decodes its result into bytes, empty or out-of-band error;
// [CallMain] calls int main(int, char**) with a C-allocated argv;
// [CallIntVoid] and [CallIntInt] call int(void) and int(int);
// [CallInts4Ret32], [CallInts4Ret64], [CallRegs4Int] and [CallRegs4Float]
// call up to four integer and four floating register arguments from a
// frame the caller fills (the executor's typed calls); [SystemStackInts4]
// and its siblings make the same calls on the system stack without
// telling the scheduler, and [CallSlice] runs a function over whole
// slices (package call's tiers and slice calls). Each makes one
// Go→C transition (CallWrapper: when the result fits in the caller's
// buffer) and does not allocate with a reused buffer. ([LookupTCP], a
// DNS lookup, is deprecated: internal/resolve holds it now.)
//
// A native call holds the goroutine's OS thread for its whole duration
// and runs on that thread's C stack, a default pthread stack
// (RLIMIT_STACK); a fault in native code crashes the process.
// Arguments are Go memory lent for the duration of the call; they must not
// live on the goroutine stack, which may move while JIT'd code calls back
// into Go — except the frames of the CallInts4/CallRegs4 calls, which may
// (RATIONALE.md, "native"). On arm64 every call into JIT'd code and every return from
// jit-dispatch executes an ISB first (package arch/arm64).
//
// The C function __llvm_orc_SimpleRemoteEPC_dispatch_fn ([DispatchFnAddr])
// is exported in the executable's dynamic symbol table (the package links
// with -rdynamic, which also lets dlsym(dlopen(NULL), name) find every
// other exported C symbol). JIT'd code calls it from any thread; it calls
// the Go handler registered for its context with [RegisterDispatch] and
// blocks until the handler returns. Unknown contexts get the out-of-band
// error [UnavailableMsg]; handler panics become out-of-band errors.
//
// # Ownership
//
//   - CallWrapper frees malloc'd results and out-of-band messages; the
//     bytes returned are Go memory (appended to the caller's dst).
//   - Dispatch results longer than 8 bytes and out-of-band messages handed
//     to JIT'd code are libc-malloc'd; the JIT'd side frees them. Handler
//     result slices stay the handler's.
//   - Handles from [Dlopen] are closed with [Dlclose].
//
// # Concurrency
//
// Every function is safe for concurrent use. dlerror() is read in the same
// C call as the failing dl* function, so errors never leak between threads.
package native
