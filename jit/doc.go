// Package jit lets a Go program compile and link code into itself at run
// time: C, C++, LLVM IR or an object file in, a [call.Func] out,
// called at the cost of a cgo call. LLVM 22's own ORC (LLJIT) does the
// compiling and linking in a sidecar process, orcrt-jit-controller, which
// [Start] launches; the Go process is its executor, so nothing of LLVM is
// linked into the Go binary. C and C++ go through clang first.
//
//	j, err := jit.Start(ctx, jit.Options{})
//	m, err := j.AddC(ctx, "filter.c", "long filter(long x) { return x % 3 == 0; }")
//	fs, err := m.Lookup(ctx, "filter")
//	filter := call.Typed1[int64, int64](fs[0])
//	ok, err := filter.Call(9)
//
// A hot loop pins the code once, with fs[0].Batch, and calls
// filter.CallHeld inside. The controller must be built from the same
// orcrt sources (`make jit-controller`; README.md).
//
// An add is one round trip (docs/protocol.md §11) that links the whole
// module; [Module.Lookup] answers from it. Compiled objects are cached on
// disk (Options.CacheDir). Each module is a JITDylib of its own: modules
// may define the same names, and [Module.Remove] releases one, waiting
// for Go calls into it in flight.
//
// A module sees this process, Options.HostSymbols and the libraries;
// one added through [JIT.LinkedTo](lib) sees lib too, and lib's Remove
// then fails with an *[InUseError] until its users are removed.
//
// # Faults
//
// A controller that crashes or is killed takes no Go call with it: loaded
// code keeps running, as after a detach, until [JIT.Close]. Requests then
// fail with an error wrapping [ErrControllerGone] (a
// *[ControllerExitError]) until [JIT.Restart], or restart it by
// themselves with Options.AutoRestart. Source that does not compile is a
// *[CompileError]; code that uses symbols nothing defines fails its add
// with a *[LinkError] naming them, and leaves nothing to remove; a name
// a module lacks, a *[NotFoundError].
//
// A request ends when its context does, with an error wrapping ctx.Err(),
// and so does a compile: clang and LLVM compile in worker processes of
// the controller, and the one compiling for an ended context is killed
// (the next add works). A link is short and is not stopped: a module
// linked after its context ended is removed, as nobody holds it.
//
// A fault in JIT'd code (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP) or
// its abort() ends the host: one line names the function and its module
// ("orcrt jit: SIGSEGV ... in filter+0x12 (module rules.c)"), then the
// Go runtime's crash output follows, goroutine stacks and exit status 2. It cannot be recovered: recover and debug.SetPanicOnFault see
// faults in Go code only, which stay Go's. Options.NoCrashReport opts out
// of the line (Go's output and status stay). The line goes to stderr. A
// host that calls signal.Ignore(syscall.SIGABRT) gets, for abort(), a
// death by SIGABRT with neither the line nor Go's output.
//
// # Concurrency and ownership
//
// A JIT and its Modules are safe for concurrent use. The bytes passed to
// an Add method are only read during the call. The package needs Linux
// and cgo; elsewhere it is empty. Source compiled is trusted code: it
// runs in this process.
package jit
