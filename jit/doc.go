// Package jit lets a Go program compile and link code into itself at run
// time: C, C++, LLVM IR or an object file in, an [executor.Func] out,
// called at the cost of a cgo call. LLVM 22's own ORC (LLJIT) does the
// compiling and linking in a sidecar process, orcrt-jit-controller, which
// [Start] launches; the Go process is its executor, so nothing of LLVM is
// linked into the Go binary. C and C++ go through clang first.
//
//	j, err := jit.Start(ctx, jit.Options{})
//	m, err := j.AddC(ctx, "filter.c", "long filter(long x) { return x % 3 == 0; }")
//	fs, err := m.Lookup(ctx, "filter")
//	filter := executor.Typed1[int64, int64](fs[0])
//	ok, err := filter.Call(9)
//
// Each Call pins the code for the call; a hot loop pins it once, with
// fs[0].Batch, and calls filter.CallHeld inside (a cgo call's cost).
// The controller must be built from the same orcrt sources as this
// package (`make jit-controller`; README.md, "Compile and call from Go").
//
// Requests travel over the session's own connection, as calls from the
// executor to the controller (docs/protocol.md §11). An add is one round
// trip: it links everything the module defines, and [Module.Lookup] then
// answers from what the add returned, with no request of its own. Objects compiled from C, C++ and IR
// are kept in an on-disk cache (Options.CacheDir), so the same input
// added again skips the compile. Each module is a JITDylib of its own:
// modules may define the same names, and [Module.Remove] releases one,
// waiting for Go calls into it in flight.
//
// # Faults
//
// A controller that crashes or is killed takes no Go call with it: loaded
// code keeps running, as after a detach, until [JIT.Close]. Requests then
// fail with an error wrapping [ErrControllerGone] (a
// *[ControllerExitError]) until [JIT.Restart], or restart it by
// themselves with Options.AutoRestart. Source that does not compile is a
// *[CompileError] carrying clang's or LLVM's diagnostics; code that uses
// symbols nothing defines fails its add with a *[LinkError] naming them,
// and leaves nothing to remove; a name a module lacks, a
// *[NotFoundError]. A request ends when its context does.
//
// A fault in JIT'd code (NULL dereference, SIGSEGV, SIGBUS, SIGFPE,
// SIGILL, SIGTRAP) or its abort() ends the host: one line names the
// function and its module ("orcrt jit: SIGSEGV (segmentation fault) in
// native code, address 0x10, pc 0x7f.. in filter+0x12 (module rules.c)"),
// then the Go runtime's crash output follows, goroutine stacks and exit
// status 2. It cannot be recovered: recover and debug.SetPanicOnFault see
// faults in Go code only, which stay Go's. Options.NoCrashReport opts out
// of the line; signal.Ignore(syscall.SIGABRT) removes it for abort().
//
// # Concurrency and ownership
//
// A JIT and its Modules are safe for concurrent use. The bytes passed to
// an Add method are only read during the call. The package needs Linux
// and cgo; elsewhere it is empty. Source compiled is trusted code: it
// runs in this process.
package jit
