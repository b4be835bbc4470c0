// Package native is the only place orcrt calls JIT'd (or any C-ABI) code.
// It uses cgo.
//
// # Calls
//
// [CallWrapper] calls a wrapper function or allocation action
// (CWrapperFunctionBuffer fn(const char*, size_t), protocol.md §4.1) and
// decodes its result into bytes, empty or out-of-band error; [CallMain]
// calls int main(int, char**) with a C-allocated argv; [CallIntVoid] and
// [CallIntInt] call int(void) and int(int). Each makes exactly one Go→C
// transition (CallWrapper: when the result fits in the caller's buffer;
// see its doc). Inline results are returned in the C struct by value, never
// through a pointer to a Go stack variable, so nothing escapes on their
// account and a call with a reused buffer does not allocate.
//
// A native call holds the calling goroutine's OS thread for its whole
// duration (cgo does this) and runs on that thread's C stack: a normal
// pthread stack, since the Go runtime of a cgo program creates its threads
// with pthread_create and default attributes (8 MiB with the usual
// RLIMIT_STACK; [ThreadStackSize] reports it, and a test recurses 6 MiB
// deep in machine code to prove it). JIT'd main therefore gets the stack
// the stock executor's worker threads get. Go's preemption and garbage
// collector keep running other goroutines meanwhile; a fault in native code
// crashes the process.
//
// Arguments are passed as Go memory for the duration of the call only.
// They may escape to the heap at the caller: JIT'd code may call back into
// Go (jit-dispatch), during which the goroutine stack can move, so they
// must not live on it.
//
// On arm64 every call into JIT'd code and every return from jit-dispatch
// executes an ISB first, the context synchronization that makes code
// published by another core (package arch) safe to execute on this one.
//
// # jit-dispatch
//
// The C function __llvm_orc_SimpleRemoteEPC_dispatch_fn (address:
// [DispatchFnAddr]) is exported in the executable's dynamic symbol table:
// the package links with -rdynamic, which also makes
// dlsym(dlopen(NULL), name) find every other exported C symbol of the
// program. JIT'd code calls it from any thread, including threads it
// created itself; it calls the Go handler registered for its context with
// [RegisterDispatch] and blocks until the handler returns. Unknown
// contexts get the out-of-band error [UnavailableMsg]; handler panics
// become out-of-band errors instead of unwinding through C frames.
//
// # Ownership
//
//   - CallWrapper frees malloc'd results and out-of-band messages; the
//     bytes returned are Go memory (appended to the caller's dst).
//   - Dispatch results longer than 8 bytes and out-of-band messages handed
//     to JIT'd code are libc-malloc'd; the JIT'd side (the ORC runtime)
//     frees them. Handler result slices stay the handler's.
//   - [Malloc] / [MallocCopy] memory belongs to whoever ends up holding it:
//     JIT'd code may free() it, or call [Free].
//   - Handles from [Dlopen] are closed with [Dlclose].
//
// # Concurrency
//
// Every function is safe for concurrent use. dlerror() is read in the same
// C call as the failing dl* function, so errors never leak between threads.
package native
