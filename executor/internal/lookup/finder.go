//go:build cgo

// Package lookup finds JIT'd functions by name for executor.Executor's
// Lookup: in the process-wide table JIT'd code fills through orcrt_export,
// and, where the executor learns the route from the controller's traffic,
// by asking the controller as the ORC runtime's dlsym does (route.go).
package lookup

import (
	"context"
	"errors"
	"fmt"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/native/codemap"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/keepalive"
	"github.com/orcgo/orcrt/sps"
)

// ExportSymbol is the name of the host function JIT'd code exports with.
const ExportSymbol = "orcrt_export"

// ErrNoRoute is executor.ErrNoLookupRoute.
var ErrNoRoute = errors.New("executor: the controller cannot be asked for JIT'd symbols")

// Env is what a Finder needs of its executor.
type Env struct {
	Session *rt.Session
	// Pin returns the pin of the memory manager's region holding a.
	Pin func(a sps.Addr) (*keepalive.Group, error)
	// Shared reports whether a lies in a live reservation of the
	// shared-memory mapper.
	Shared func(a sps.Addr) bool
	// Guard returns what guards calls of the code at addr, or why it
	// may not be called (executor.Executor.Func's errors).
	Guard func(addr uintptr) (*keepalive.Group, error)
	Log   interface{ Debug(msg string, args ...any) }
}

// Finder finds one executor's JIT'd functions.
type Finder struct {
	env   Env
	route lookupRoute
}

// New returns a Finder; with learn, it learns the controller route from
// the calls it sees through CallJITWrapper and ObserveDispatch.
func New(env Env, learn bool) *Finder {
	f := &Finder{env: env}
	f.route.init(learn)
	return f
}

// Start makes f's memory searched by the export handler until stop.
func (f *Finder) Start() (stop func()) {
	live.mu.Lock()
	live.set[f] = struct{}{}
	live.mu.Unlock()
	return func() {
		live.mu.Lock()
		delete(live.set, f)
		live.mu.Unlock()
	}
}

// LookupAll is executor.Executor.LookupAll.
func (f *Finder) LookupAll(ctx context.Context, names ...string) ([]call.Func, error) {
	out := make([]call.Func, len(names))
	found := make([]bool, len(names))
	if err := f.waitLookup(ctx, names, out, found); err != nil {
		return nil, err
	}
	return out, nil
}

func (f *Finder) sessionGroup() *keepalive.Group { return f.env.Session.KeepaliveSource().Group() }

// fn is executor.Executor.Func.
func (f *Finder) fn(addr uintptr) (call.Func, error) {
	g, err := f.env.Guard(addr)
	if err != nil {
		return call.Func{}, err
	}
	return call.NewFunc(addr, g, f.sessionGroup()), nil
}

// funcIn returns the Func at addr in the region pin guards.
func (f *Finder) funcIn(pin *keepalive.Group, addr uintptr) (call.Func, error) {
	if err := codemap.Check(addr); err != nil {
		return call.Func{}, fmt.Errorf("executor: Func: %w", err)
	}
	return call.NewFunc(addr, pin, f.sessionGroup()), nil
}
