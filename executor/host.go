//go:build cgo

package executor

import (
	"errors"
	"fmt"

	"github.com/orcgo/orcrt/alloc"
	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/executor/internal/lookup"
	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/native/codemap"
	"github.com/orcgo/orcrt/rt/keepalive"
	"github.com/orcgo/orcrt/sps"
)

// EndOfInput says what Serve does when the controller's connection ends.
type EndOfInput uint8

const (
	// EndShutdown shuts the Session down, as the stock executor does:
	// dealloc actions run, the memory is released, and Serve returns once
	// that is done.
	EndShutdown EndOfInput = iota
	// EndDetach only detaches the Session: JIT'd code and its memory stay,
	// callable through [Func] values, until the host calls
	// [Executor.Close]. Serve returns once the connection has ended and the
	// controller's calls have returned.
	EndDetach
)

// HostSymbol publishes a function of the host to JIT'd code: the dylib
// manager answers lookups of Name in the process (the controller's "do
// not know where, look in the executor") with Addr before asking dlsym,
// so it needs no entry in the binary's dynamic symbol table. Addr is a C
// function the host links, a cgo export (C.fn) or a trampoline.
type HostSymbol struct {
	Name string
	Addr uintptr
}

// ErrShutDown is call.ErrShutDown, the same error value.
//
// Deprecated: use call.ErrShutDown.
var ErrShutDown = call.ErrShutDown

// ErrReleased is call.ErrReleased, the same error value.
//
// Deprecated: use call.ErrReleased.
var ErrReleased = call.ErrReleased

// Func is a JIT'd function a host has found ([Executor.Lookup]) or been
// given; see [call.Func].
//
// Deprecated: use call.Func (the same type).
type Func = call.Func

// Func returns the JIT'd function at addr. It fails if addr is not
// executable code in this process (package codemap), or lies in an
// allocation that is being released.
func (e *Executor) Func(addr uintptr) (Func, error) {
	g, err := e.guardOf(addr)
	if err != nil {
		return Func{}, err
	}
	return call.NewFunc(addr, g, e.sessionGroup()), nil
}

// guardOf returns what guards calls of the code at addr: the pin of the
// allocation holding it, or the Session's keepalive group for code
// outside JIT'd memory.
func (e *Executor) guardOf(addr uintptr) (*keepalive.Group, error) {
	if addr == 0 {
		return nil, errors.New("executor: Func at address 0")
	}
	pin, err := e.mm.Pin(sps.Addr(addr))
	if errors.Is(err, alloc.ErrNotAllocated) && e.shm != nil {
		var code bool
		pin, code, err = e.shm.PinCode(sps.Addr(addr))
		if err == nil && code {
			// The mapper made it executable: no need to ask the maps.
			return pin, nil
		}
	}
	switch {
	case err == nil:
		if err := codemap.Check(addr); err != nil {
			return nil, fmt.Errorf("executor: Func: %w", err)
		}
		return pin, nil
	case errors.Is(err, alloc.ErrNotAllocated):
		// Not JIT'd memory: host code, or shared memory.
		if err := codemap.Check(addr); err != nil {
			return nil, fmt.Errorf("executor: Func: %w", err)
		}
		return e.sessionGroup(), nil
	}
	if e.shuttingDown() {
		return nil, ErrShutDown
	}
	return nil, fmt.Errorf("executor: Func at %#x: %w", addr, ErrReleased)
}

// Batch runs fn under one keepalive token of the Session, as it did
// before calls pinned their code: shutdown waits for fn, and fn may call
// [call.Func.CallHeld] on code the controller does not release meanwhile (a
// JIT'd main still running, host code). It returns ErrShutDown, without
// running fn, once shutdown has begun. fn must not block on the Session's
// shutdown.
//
// Deprecated: use [call.Func.Batch], which also holds off the controller's
// release of the function's code (clang-repl's %quit, say).
func (e *Executor) Batch(fn func()) error {
	if !e.s.CallWithKeepalive(fn) {
		return ErrShutDown
	}
	return nil
}

// shuttingDown reports whether the Session's shutdown has begun (its
// keepalive group is closed).
func (e *Executor) shuttingDown() bool { return e.sessionGroup().Closing() }

// sessionGroup is the Session's keepalive group, which a call.Func asks
// why a call was denied.
func (e *Executor) sessionGroup() *keepalive.Group { return e.s.KeepaliveSource().Group() }

// addHostSymbols publishes the host's symbols through the dylib manager.
func (e *Executor) addHostSymbols(syms []HostSymbol) error {
	lookup.InstallExportHandler()
	syms = append([]HostSymbol{{Name: ExportSymbol, Addr: native.ExportAddr()}}, syms...)
	for _, h := range syms {
		if err := e.dylibs.AddProcessSymbol(h.Name, sps.Addr(h.Addr)); err != nil {
			return fmt.Errorf("executor: host symbol: %w", err)
		}
	}
	return nil
}
