//go:build cgo

package executor

import (
	"context"

	"github.com/orcgo/orcrt/executor/internal/lookup"
)

// ExportSymbol is the host function every Executor publishes to JIT'd
// code, declared in C as
//
//	int orcrt_export(const char *name, void *fn);
//
// JIT'd code calls it to hand a function to the Go host by name (from
// main, a static constructor or a clang-repl input); [Executor.Lookup]
// finds it. It returns 0, or -1 for a NULL or over-long name or a NULL fn.
const ExportSymbol = lookup.ExportSymbol

// ErrNoLookupRoute is wrapped by a Lookup error when the controller could
// not be asked for the names: the executor has not seen the ORC runtime
// look a symbol up through the controller (see [Executor.Lookup]).
var ErrNoLookupRoute = lookup.ErrNoRoute

// Lookup returns the JIT'd function named name, waiting for it until ctx
// is done: a host usually looks up what the JIT'd program provides at
// start-up. It finds functions in two ways:
//
//   - exported with orcrt_export ([ExportSymbol]): of several exports of
//     one name, the newest whose code is still allocated wins (a
//     clang-repl redefinition after %undo, say);
//   - by asking the controller, where it runs LLVM's ORC runtime and the
//     runtime has been seen to look a symbol up through it
//     (llvm-jitlink -orc-runtime, once it has started main): the
//     controller looks name up in the JITDylib whose program it started
//     ("main"), as the runtime's dlsym does, with no change to the C
//     code. Names are the linker's (C++ functions by their mangled
//     names). clang-repl's runtime never looks a symbol up, so there
//     only exports are found.
//
// The first answer wins; an error answered by the controller leaves
// Lookup waiting for an export until ctx is done, and its error then says
// what the controller answered, or why it could not be asked (wrapping
// [ErrNoLookupRoute]). The Func pins its code as [Executor.Func] does.
func (e *Executor) Lookup(ctx context.Context, name string) (Func, error) {
	fs, err := e.LookupAll(ctx, name)
	if err != nil {
		return Func{}, err
	}
	return fs[0], nil
}

// LookupAll is Lookup of several names at once: it waits until every name
// is found, and its error names those that never were.
func (e *Executor) LookupAll(ctx context.Context, names ...string) ([]Func, error) {
	return e.find.LookupAll(ctx, names...)
}
