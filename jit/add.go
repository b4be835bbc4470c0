//go:build linux && cgo

package jit

import (
	"context"
	"slices"
	"strings"

	"github.com/orcgo/orcrt/jit/internal/objcache"
	"github.com/orcgo/orcrt/sps"
)

// Adder adds modules linked against other modules: the symbols those
// export (C functions and globals neither static nor hidden) resolve the
// new module's undefined ones, before this process's symbols and the
// libraries'. A module sees the modules named, not the modules they link
// against in turn. A module that others linked against stays loaded as
// long as they do: its Remove fails with an *InUseError until they are
// removed. An Adder is safe for concurrent use.
type Adder struct {
	j     *JIT
	links []*Module
}

// LinkedTo returns an Adder whose modules link against mods, in order
// (none: the JIT's own Add methods). The modules must be this JIT's, of
// its current controller.
func (j *JIT) LinkedTo(mods ...*Module) *Adder {
	return &Adder{j: j, links: slices.Clone(mods)}
}

// AddObject is JIT.AddObject, linked against the Adder's modules.
func (a *Adder) AddObject(ctx context.Context, name string, obj []byte) (*Module, error) {
	c, err := a.j.controller(ctx, false)
	if err != nil {
		return nil, err
	}
	return a.send(ctx, c, name, "llvm", false, objectRequest(name, obj))
}

// AddIR is JIT.AddIR, linked against the Adder's modules.
func (a *Adder) AddIR(ctx context.Context, name string, ir []byte) (*Module, error) {
	key := [][]byte{[]byte("ir"), ir}
	return a.addCompiled(ctx, name, key, "llvm", func(t addTail) (int, []byte) {
		return tagAdd, addSig.AppendArgs(nil, name, kindIR, sps.Pair[[]byte, addTail]{First: ir, Second: t})
	})
}

// AddC is JIT.AddC, linked against the Adder's modules.
func (a *Adder) AddC(ctx context.Context, name, src string, flags ...string) (*Module, error) {
	return a.AddSource(ctx, C, name, src, flags...)
}

// AddCXX is JIT.AddCXX, linked against the Adder's modules.
func (a *Adder) AddCXX(ctx context.Context, name, src string, flags ...string) (*Module, error) {
	return a.AddSource(ctx, CXX, name, src, flags...)
}

// AddSource is JIT.AddSource, linked against the Adder's modules.
func (a *Adder) AddSource(ctx context.Context, lang Language, name, src string, flags ...string) (*Module, error) {
	args := append(append([]string{}, flags...), "-x", string(lang))
	// The name is part of the key: it is the file name __FILE__ and debug
	// information hold.
	key := [][]byte{[]byte("source"), []byte(name), []byte(strings.Join(args, "\x00")), []byte(src)}
	return a.addCompiled(ctx, name, key, "clang", func(t addTail) (int, []byte) {
		return tagCompile, compileSig.AppendArgs(nil, name, args, sps.Pair[string, addTail]{First: src, Second: t})
	})
}

// objectRequest asks for obj to be linked as module name.
func objectRequest(name string, obj []byte) func(addTail) (int, []byte) {
	return func(t addTail) (int, []byte) {
		return tagAdd, addSig.AppendArgs(nil, name, kindObject, sps.Pair[[]byte, addTail]{First: obj, Second: t})
	}
}

// addCompiled adds what request asks the controller to compile, or the
// object a previous compile of the same input left in the cache. key
// names the input; the controller's versions and target complete it.
func (a *Adder) addCompiled(ctx context.Context, name string, key [][]byte, tool string, request func(addTail) (tag int, args []byte)) (*Module, error) {
	c, err := a.j.controller(ctx, false)
	if err != nil {
		return nil, err
	}
	cache := a.j.cache
	if cache == nil {
		return a.send(ctx, c, name, tool, true, request)
	}
	k := objcache.NewKey(append(key, []byte(c.version), []byte(c.target), []byte{controllerProtocol})...)
	if obj, ok := cache.Get(k); ok {
		return a.send(ctx, c, name, "llvm", false, objectRequest(name, obj))
	}
	m, err := a.send(ctx, c, name, tool, true, func(t addTail) (int, []byte) {
		t.First = true // answer the object, for the cache
		return request(t)
	})
	if err != nil {
		return nil, err
	}
	if err := cache.Put(k, m.object); err != nil && a.j.opts.Logger != nil {
		a.j.opts.Logger.Error("jit: keeping a compiled object", "module", name, "err", err)
	}
	m.object = nil
	return m, nil
}

// send sends an add or compile request (both answer the added module)
// and returns the module once its memory is initialized here; tool names
// what compiled the module in a CompileError. A request that compiles
// gets a ticket, so that ending ctx stops the compile.
func (a *Adder) send(ctx context.Context, c *controller, name, tool string, compiles bool, request func(addTail) (int, []byte)) (*Module, error) {
	ids, err := holdLinks(c, a.links)
	if err != nil {
		return nil, err
	}
	var ticket uint64
	var cancel func()
	if compiles {
		ticket = c.tickets.Add(1)
		cancel = func() { c.cancel(ticket) }
	}
	tag, args := request(addTail{Second: ticket, Third: ids})
	decode := func(res []byte) (*Module, error) {
		m, err := c.added(name, tag, tool, res)
		releaseLinks(a.links, m)
		return m, err
	}
	// A module added after ctx ended is one nobody holds: removed.
	late := func(m *Module) { _ = m.Remove(context.Background()) }
	return callAs(ctx, c, tag, args, decode, late, cancel)
}
