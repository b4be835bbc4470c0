// Package dylib is the executor's dynamic-library manager: the Go form of
// LLVM 22's SimpleExecutorDylibManager (docs/protocol.md §5.2). The
// controller opens libraries (or the executor process itself) and resolves
// symbols in them.
//
// [Manager.Install] registers the instance and the open and resolve
// wrappers on a Session under LLVM 22's bootstrap names ([InstanceName],
// [OpenWrapperName], [ResolveWrapperName]), with the stock semantics and
// error texts. Beyond them: a symbol whose value is 0 counts as missing,
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
