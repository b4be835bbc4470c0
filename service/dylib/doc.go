// Package dylib is the executor's dynamic-library manager: the Go form of
// LLVM 22's SimpleExecutorDylibManager (protocol.md §5.2). The controller
// opens libraries (or the executor process itself) and resolves symbols in
// them; llvm-jitlink uses it for every external symbol JIT'd code needs.
//
// # Wire behaviour
//
// [Manager.Install] registers the instance and two wrapper functions on a
// Session under LLVM 22's bootstrap names ([InstanceName],
// [OpenWrapperName], [ResolveWrapperName]):
//
//   - open(Instance, Path, Mode) -> SPSExpected<Addr>: Mode != 0 fails with
//     "open: non-zero mode bits not yet supported"; Path "" opens the
//     process itself (dlopen(NULL)); anything else is dlopen(Path,
//     RTLD_LAZY|RTLD_GLOBAL), whose dlerror() text is the error. Libraries
//     are never closed (as the stock executor makes them permanent). Every
//     open returns a fresh, distinct handle, even for the same path.
//   - resolve(Handle, Symbols) -> SPSExpected<Sequence<Optional<SymbolDef>>>:
//     one entry per symbol, in order: found -> Some{addr, Exported (0x10), 0};
//     missing and not required -> Some{0, 0x10, 0}; missing and required ->
//     None; empty name, not required -> None; empty name, required -> the
//     error `Required address for empty symbol ""` for the whole call. A
//     symbol whose value is 0 counts as missing. Names are plain ELF names
//     (no prefix stripping); a name holding a NUL byte is looked up up to
//     the NUL, as the stock executor's C string does.
//
// Handles are addresses of small Go objects that the Manager's registry
// keeps alive; the controller's value is only ever looked up in that
// registry, never cast to a pointer, so an unknown handle gives an
// SPSExpected error naming it instead of a crash.
//
// # Concurrency and ownership
//
// A Manager is safe for concurrent use. One resolve call makes a single cgo
// call for all its names. Handles stay valid until the Manager shuts down
// ([Manager.OnShutdown] forgets them; the libraries stay loaded, as
// dlopen'd code may still be running). Results returned by [Manager.Resolve]
// are the caller's.
package dylib
