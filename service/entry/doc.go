// Package entry is how the controller enters JIT'd code: LLVM 22's
// bootstrap run wrappers (protocol.md §5.4) and calls of JIT'd wrapper
// functions by address (protocol.md §4.1).
//
//   - run_as_main(Addr, Sequence<String>) -> i64 calls int main(int,
//     char**) with argc = the number of arguments (no program name is
//     prepended), argv in C memory with argv[argc] = NULL, and returns
//     the int sign-extended;
//   - run_as_void_function(Addr) -> i32 calls int fn(void);
//   - run_as_int_function(Addr, i32) -> i32 calls int fn(int);
//   - [CallJITWrapper] is the Session's unknown-target handler: a
//     CallWrapper whose address is not one of the Session's own wrapper
//     functions is a JIT'd function with the C signature
//     CWrapperFunctionBuffer fn(const char*, size_t) (for example the ORC
//     runtime's __orc_rt_run_program_wrapper), called natively.
//
// Each runs synchronously on the goroutine handling the call, inside the
// Session's task, so it holds a keepalive token for its whole duration:
// the Session does not shut down under running JIT'd code. The goroutine
// (and its OS thread) is blocked while JIT'd code runs; JIT'd code may
// call back (jit-dispatch) meanwhile, and other calls keep being served
// on other goroutines.
//
// Before any native call the target is checked with package codemap: an
// address that is not executable code in this process (not JIT'd code
// that is executable now, not the text of a loaded object, not in any
// executable mapping) gives an out-of-band error naming the address
// instead of a crash; so does address 0. An address inside code that is
// not a function of the expected signature still crashes the process, as
// in the stock executor: the controller is trusted to name real entry
// points (README, "Trust boundary").
//
// The functions are safe for concurrent use. Result bytes belong to the
// Session once returned.
package entry
