// Package dylib is the executor's dynamic-library manager: the Go form of
// LLVM 22's SimpleExecutorDylibManager (docs/protocol.md §5.2). The
// controller opens libraries (or the executor process itself) and resolves
// symbols in them.
//
// [Manager.Install] registers the instance, the open wrapper and the
// lookup of the Session's dialect: LLVM 22's resolve ([ResolveWrapperName])
// or LLVM 14-19's lookup ([LookupWrapperName]), with the stock semantics and
// error texts. Under LLVM 23's dialect resolve answers in the form its
// caller used, 22's (Handle, Set) or 23's (Instance, Handle, Set) with
// addresses only, told apart by the Instance, which no handle equals; the
// same instance is also published under orc-rt's NativeDylibManager names. Names added with [Manager.AddProcessSymbol] (orcrt's own
// functions under older dialects' names, a Go host's functions) answer
// lookups in the process before dlsym. Beyond them: a symbol whose value is 0 counts as missing,
// a name holding a NUL byte is looked up up to the NUL (as the stock's C
// string is), and an empty required name is an error instead of the
// stock's crash. Libraries are never closed.
//
// Handles are addresses of small Go objects the Manager's registry keeps
// alive and are only ever looked up there, so an unknown handle gives an
// error naming it instead of a crash.
//
// A Manager is safe for concurrent use. One resolve call makes a single cgo
// call for all its names. Handles stay valid until the Manager shuts down
// ([Manager.OnShutdown] forgets them; the libraries stay loaded). Results
// returned by [Manager.Resolve] are the caller's.
package dylib
