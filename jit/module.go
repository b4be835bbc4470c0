//go:build linux && cgo

package jit

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/native/jitsyms"
)

// Module is code added to a JIT: a JITDylib of its own in the controller,
// so modules may define the same names. Its methods are safe for
// concurrent use.
type Module struct {
	c       *controller
	id      uint64
	name    string
	syms    map[string]uintptr    // everything it defines, linked at add
	facts   map[string]call.Facts // its functions, with what the link proved
	code    []jitsyms.Sym         // its functions' ranges, named for crash reports
	object  []byte                // the object compiled, until it is cached
	links   []*Module             // the modules it links against
	removed atomic.Bool

	mu     sync.Mutex
	users  map[*Module]struct{} // loaded modules linked against it
	adding int                  // adds in flight that link against it
}

// added decodes an add's answer on the connection's reader: it runs the
// initialize calls the controller held back, so that the module's memory
// is ready before any later message, and makes the Module.
func (c *controller) added(name string, tag int, tool string, res []byte) (*Module, error) {
	e, err := addSig.DecodeResult(res)
	if err != nil {
		return nil, fmt.Errorf("jit: the controller's answer to %s: %w", tagNames[tag], err)
	}
	if e.Err != nil {
		if ce := compileError(name, tool, e.Err); ce != nil {
			return nil, ce
		}
		if le := linkError(name, e.Err); le != nil {
			return nil, le
		}
		return nil, fmt.Errorf("jit: adding %s: %w", name, e.Err)
	}
	id, syms := e.Value.First.First, e.Value.First.Second
	m := &Module{c: c, id: id, name: name, syms: make(map[string]uintptr, len(syms)), object: e.Value.Second.Second}
	for _, s := range syms {
		m.syms[s.First] = uintptr(s.Second)
		size := s.Third.First
		if size == 0 {
			continue
		}
		m.code = append(m.code, jitsyms.Sym{Start: uint64(s.Second), End: uint64(s.Second) + size, Name: s.First})
		if m.facts == nil {
			m.facts = make(map[string]call.Facts)
		}
		m.facts[s.First] = decodeFacts(s.Third)
	}
	if err := c.runDeferred(e.Value.Second.First); err != nil {
		// The controller holds a module whose memory is not ready here.
		go func() { _ = m.Remove(context.Background()) }()
		return nil, fmt.Errorf("jit: adding %s: %w", name, err)
	}
	m.registerCode()
	return m, nil
}

// decodeFacts returns a function's facts as the controller answered
// them; a calls value it does not know proves nothing.
func decodeFacts(f facts) call.Facts {
	out := call.Facts{StackSize: f.Third.Second, HasStackSize: f.Third.First}
	switch f.Second {
	case callsNothing:
		out.Calls = call.CallsNothing
	case callsNonBlocking:
		out.Calls = call.CallsNonBlocking
	case callsUnknown:
		out.Calls = call.CallsUnknown
	}
	if !out.HasStackSize {
		out.StackSize = 0
	}
	return out
}

// Facts returns what the module's link proved about the code of its
// function name (docs/protocol.md §11): the facts Lookup's Func for it
// is called with. It reports false for a name the module does not
// define as a function.
func (m *Module) Facts(name string) (call.Facts, bool) {
	f, ok := m.facts[name]
	return f, ok
}

// Name returns the name the module was added with.
func (m *Module) Name() string { return m.name }

// Lookup returns the module's functions of the given names (as the linker
// spells them: C++ names mangled), in the order of names. The add linked
// the module and returned its symbols, so Lookup of what it defines makes
// no request (other names ask the controller, which answers as below). Call a
// Func with its real signature through call.Typed1 and its siblings;
// for many calls, make them with CallHeld inside the Func's Batch, one pin
// for all of them (see call.Func). A name the module does not define
// fails the whole lookup with a *NotFoundError; a name that is not code
// fails as executor.Executor.Func does. Each Func pins its code while it runs.
// Each Func is called at the highest tier the facts its link proved allow
// (Facts, call.Func.WithFacts): a name the add did not link has none.
func (m *Module) Lookup(ctx context.Context, names ...string) ([]call.Func, error) {
	addrs, err := m.Addrs(ctx, names...)
	if err != nil {
		return nil, err
	}
	fs := make([]call.Func, len(addrs))
	for i, a := range addrs {
		if fs[i], err = m.c.ex.Func(a); err != nil {
			return nil, fmt.Errorf("jit: %s in module %s: %w", names[i], m.name, err)
		}
		if f, ok := m.facts[names[i]]; ok && m.syms[names[i]] == a {
			fs[i] = fs[i].WithFacts(f)
		}
	}
	return fs, nil
}

// Addrs returns the addresses of the module's symbols of the given names,
// data as well as code, as Lookup finds them. The memory stays valid until the module is
// removed or the JIT closed; nothing pins it.
func (m *Module) Addrs(ctx context.Context, names ...string) ([]uintptr, error) {
	if m.removed.Load() {
		return nil, ErrRemoved
	}
	if out, ok := m.linked(names); ok {
		return out, nil
	}
	res, err := m.c.call(ctx, tagLookup, lookupSig.AppendArgs(nil, m.id, names))
	if err != nil {
		return nil, err
	}
	addrs, err := decodeAddrs(res)
	if err != nil {
		return nil, fmt.Errorf("jit: looking up in module %s: %w", m.name, err)
	}
	if len(addrs) != len(names) {
		return nil, fmt.Errorf("jit: the controller answered %d addresses for %d names", len(addrs), len(names))
	}
	var missing []string
	out := make([]uintptr, len(addrs))
	for i, a := range addrs {
		if a == 0 {
			missing = append(missing, names[i])
		}
		out[i] = uintptr(a)
	}
	if missing != nil {
		return nil, &NotFoundError{Module: m.name, Names: missing}
	}
	return out, nil
}

// Pointers is Addrs with the addresses as pointers, for data a host
// reads or writes through unsafe: converting Addrs' uintptrs itself is
// what go vet reports as a possible misuse of unsafe.Pointer.
func (m *Module) Pointers(ctx context.Context, names ...string) ([]unsafe.Pointer, error) {
	addrs, err := m.Addrs(ctx, names...)
	if err != nil {
		return nil, err
	}
	out := make([]unsafe.Pointer, len(addrs))
	for i, a := range addrs {
		// JIT'd memory, outside Go's heap: valid until Remove or Close.
		out[i] = *(*unsafe.Pointer)(unsafe.Pointer(&a))
	}
	return out, nil
}

// linked returns the addresses of names from what the add linked, if it
// defines every one.
func (m *Module) linked(names []string) ([]uintptr, bool) {
	out := make([]uintptr, len(names))
	for i, n := range names {
		a, ok := m.syms[n]
		if !ok {
			return nil, false
		}
		out[i] = a
	}
	return out, true
}

// Remove runs the module's static destructors and releases its memory,
// after waiting for Go calls into its code in flight (at most
// alloc.DefaultPinWait); later calls of its Funcs fail with
// call.ErrReleased. If ctx has ended before Remove starts, it returns
// ctx's error and the module stays; once started, the removal completes
// whatever ctx does, and Remove returns its result. A module that
// modules still loaded link against (JIT.LinkedTo) is not removed: Remove
// returns an *InUseError naming them. A module of a controller that has
// exited cannot be removed: its code stays until Close.
func (m *Module) Remove(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("jit: removing module %s: %w", m.name, err)
	}
	m.mu.Lock()
	if len(m.users) > 0 || m.adding > 0 {
		err := &InUseError{Module: m.name, Adding: m.adding}
		for u := range m.users {
			err.Users = append(err.Users, u.name)
		}
		slices.Sort(err.Users)
		m.mu.Unlock()
		return err
	}
	removed := m.removed.Swap(true)
	m.mu.Unlock()
	if removed {
		return ErrRemoved
	}
	defer m.unlink()
	res, err := m.c.call(context.WithoutCancel(ctx), tagRemove, removeSig.AppendArgs(nil, m.id))
	if err == nil {
		var e error
		if e, err = removeSig.DecodeResult(res); err == nil {
			err = e
		}
	}
	if err != nil {
		return fmt.Errorf("jit: removing module %s: %w", m.name, err)
	}
	return nil
}

// hold counts an add in flight that links against m, on controller c.
func (m *Module) hold(c *controller) error {
	if m.c != c {
		return fmt.Errorf("jit: linking against module %s: it belongs to another JIT, or to a controller before a restart", m.name)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.removed.Load() {
		return fmt.Errorf("jit: linking against module %s: %w", m.name, ErrRemoved)
	}
	m.adding++
	return nil
}

// holdLinks holds each of mods for an add on c and returns their ids.
func holdLinks(c *controller, mods []*Module) ([]uint64, error) {
	ids := make([]uint64, 0, len(mods))
	for i, d := range mods {
		if err := d.hold(c); err != nil {
			releaseLinks(mods[:i], nil)
			return nil, err
		}
		ids = append(ids, d.id)
	}
	return ids, nil
}

// releaseLinks ends the holds of an add, whose module, if it was added,
// is user.
func releaseLinks(mods []*Module, user *Module) {
	if user != nil {
		user.links = mods
	}
	for _, d := range mods {
		d.mu.Lock()
		d.adding--
		if user != nil {
			if d.users == nil {
				d.users = make(map[*Module]struct{})
			}
			d.users[user] = struct{}{}
		}
		d.mu.Unlock()
	}
}

// unlink drops m from the users of the modules it links against.
func (m *Module) unlink() {
	for _, d := range m.links {
		d.mu.Lock()
		delete(d.users, m)
		d.mu.Unlock()
	}
}
