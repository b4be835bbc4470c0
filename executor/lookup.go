//go:build cgo

package executor

import (
	"context"
	"fmt"
	"sync"

	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/rt/keepalive"
	"github.com/orcgo/orcrt/sps"
)

// ExportSymbol is the host function every Executor publishes to JIT'd
// code, declared in C as
//
//	int orcrt_export(const char *name, void *fn);
//
// JIT'd code calls it to hand a function to the Go host by name (from
// main, a static constructor or a clang-repl input); [Executor.Lookup]
// finds it. It returns 0, or -1 for a NULL or over-long name or a NULL fn.
const ExportSymbol = "orcrt_export"

// exports is the process-wide table orcrt_export fills: one C entry point
// serves every Executor. An entry remembers the region (its pin) the
// address was in when it was exported, so that code released and another
// allocated at the same address is never taken for it.
var exports = struct {
	mu      sync.Mutex
	byName  map[string][]export // newest last
	changed chan struct{}       // closed and replaced on every export
}{byName: map[string][]export{}, changed: make(chan struct{})}

type export struct {
	addr uintptr
	ex   *Executor        // whose JIT'd memory holds it; nil: host code
	pin  *keepalive.Group // the region's pin; nil: host code
}

var exportOnce sync.Once

func installExportHandler() {
	exportOnce.Do(func() {
		native.SetExportHandler(func(name string, addr uintptr) int {
			x := export{addr: addr}
			live.mu.Lock()
			for e := range live.set {
				if pin, err := e.mm.Pin(sps.Addr(addr)); err == nil {
					x.ex, x.pin = e, pin
					break
				}
			}
			live.mu.Unlock()
			exports.mu.Lock()
			exports.byName[name] = append(exports.byName[name], x)
			close(exports.changed)
			exports.changed = make(chan struct{})
			exports.mu.Unlock()
			return 0
		})
	})
}

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
	out := make([]Func, len(names))
	found := make([]bool, len(names))
	if err := e.waitLookup(ctx, names, out, found); err != nil {
		return nil, err
	}
	return out, nil
}

// newestExport finds name's newest export e can call, forgetting those
// whose code is gone (exports.mu held).
func (e *Executor) newestExport(name string) (Func, bool) {
	xs := exports.byName[name]
	defer func() { exports.byName[name] = xs }()
	for i := len(xs) - 1; i >= 0; i-- {
		x := xs[i]
		switch {
		case x.pin != nil && x.pin.Closing():
			xs = append(xs[:i], xs[i+1:]...) // released, for every Executor
		case x.ex == e:
			if f, err := e.funcIn(x.pin, x.addr); err == nil {
				return f, true
			}
		case x.ex == nil:
			// Host code, or JIT'd code exported while its memory was still
			// being initialized (a static constructor): bind it now.
			if f, err := e.Func(x.addr); err == nil {
				if f.pinned {
					xs[i].ex, xs[i].pin = e, f.guard
				}
				return f, true
			}
		}
	}
	return Func{}, false
}

// live is the set of Executors not yet shut down, whose memory the export
// handler searches.
var live = struct {
	mu  sync.Mutex
	set map[*Executor]struct{}
}{set: map[*Executor]struct{}{}}

// notFound lists the names not found, for errors.
func notFound(names []string, found []bool) string {
	s := ""
	for i, n := range names {
		if !found[i] {
			if s != "" {
				s += ", "
			}
			s += fmt.Sprintf("%q", n)
		}
	}
	return s
}
