// Package entry is how the controller enters JIT'd code: LLVM 22's
// bootstrap run wrappers run_as_main, run_as_void_function and
// run_as_int_function (docs/protocol.md §5.4), and [CallJITWrapper], the
// Session's unknown-target handler, which calls a CallWrapper address that
// is not one of the Session's own wrappers as a JIT'd
// CWrapperFunctionBuffer fn(const char*, size_t) (docs/protocol.md §4.1).
//
// Each runs synchronously on the goroutine handling the call, inside the
// Session's task, so it holds a keepalive token for its whole duration:
// the Session does not shut down under running JIT'd code. JIT'd code may
// call back (jit-dispatch) meanwhile, and other calls keep being served
// on other goroutines.
//
// Before any native call the target is checked with package codemap: an
// address that is not executable code in this process, or 0, gives an
// out-of-band error naming it. An address inside code that is not a
// function of the expected signature still crashes the process, as in the
// stock executor (README, "Trust boundary").
//
// The functions are safe for concurrent use. Result bytes belong to the
// Session once returned.
package entry
