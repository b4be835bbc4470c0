//go:build cgo

package executor

import (
	"errors"
	"fmt"

	"github.com/orcgo/orcrt/alloc"
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

// ErrShutDown is returned by a [Func] call once the Session's shutdown
// has begun: the code it would call may be gone.
var ErrShutDown = errors.New("executor: the session is shutting down; JIT'd code may not be called")

// ErrReleased is returned by a [Func] call once the controller has begun
// to release or deinitialize the allocation holding the function: the code
// may be gone, so it is not called.
var ErrReleased = errors.New("executor: the controller has released the JIT'd code; it may not be called")

// Func is a JIT'd function a host has found ([Executor.Lookup]) or been
// given (JIT'd code calling a host function with its address, say). A
// call pins the allocation holding the code: the controller's release or
// deinitialize of that allocation waits until calls in flight have
// returned (alloc.Config.PinWait bounds the wait) and calls that start
// later fail with [ErrReleased]; session shutdown waits the same way and
// later calls fail with [ErrShutDown]. Code in the shared-memory mapper's
// allocations is pinned alike. Code in other allocations that the
// function calls is not pinned. Code outside JIT'd memory (a host
// function) is guarded by a Session keepalive token instead. A Func is a small value; copy it freely and call it from any
// goroutine. Call it as int32 f(int32) with [Func.Call], or with its
// real C signature through the typed forms ([Typed1] and its siblings).
type Func struct {
	guard  *keepalive.Group // the allocation's pin, or the Session's keepalive group
	ex     *Executor
	addr   uintptr
	pinned bool // guard is an allocation's pin
}

// Func returns the JIT'd function at addr. It fails if addr is not
// executable code in this process (package codemap), or lies in an
// allocation that is being released.
func (e *Executor) Func(addr uintptr) (Func, error) {
	if addr == 0 {
		return Func{}, errors.New("executor: Func at address 0")
	}
	pin, err := e.mm.Pin(sps.Addr(addr))
	if errors.Is(err, alloc.ErrNotAllocated) && e.shm != nil {
		var code bool
		pin, code, err = e.shm.PinCode(sps.Addr(addr))
		if err == nil && code {
			// The mapper made it executable: no need to ask the maps.
			return Func{guard: pin, ex: e, addr: addr, pinned: true}, nil
		}
	}
	switch {
	case err == nil:
		return e.funcIn(pin, addr)
	case errors.Is(err, alloc.ErrNotAllocated):
		// Not JIT'd memory: host code, or shared memory.
		if err := codemap.Check(addr); err != nil {
			return Func{}, fmt.Errorf("executor: Func: %w", err)
		}
		return Func{guard: e.s.KeepaliveSource().Group(), ex: e, addr: addr}, nil
	}
	if e.shuttingDown() {
		return Func{}, ErrShutDown
	}
	return Func{}, fmt.Errorf("executor: Func at %#x: %w", addr, ErrReleased)
}

// funcIn returns the Func at addr in the region pin guards.
func (e *Executor) funcIn(pin *keepalive.Group, addr uintptr) (Func, error) {
	if err := codemap.Check(addr); err != nil {
		return Func{}, fmt.Errorf("executor: Func: %w", err)
	}
	return Func{guard: pin, ex: e, addr: addr, pinned: true}, nil
}

// Addr returns the function's address.
func (f Func) Addr() uintptr { return f.addr }

// enter takes the call's guard token: one atomic pair.
// The hot paths (Call, the typed calls) spell enter out: with its nil
// check it exceeds the inlining budget, and Group.Acquire alone fits.
func (f Func) enter() (keepalive.Token, error) {
	if f.guard == nil {
		return keepalive.Token{}, errZeroFunc
	}
	if tok, ok := f.guard.Acquire(); ok {
		return tok, nil
	}
	return keepalive.Token{}, f.denied()
}

var errZeroFunc = errors.New("executor: call of the zero Func")

// denied says why the guard refused a token.
//
//go:noinline
func (f Func) denied() error {
	if !f.pinned || f.ex.shuttingDown() {
		return ErrShutDown
	}
	return ErrReleased
}

// Call calls the function as int32 f(int32), with x, pinning its code for
// the call.
func (f Func) Call(x int32) (int32, error) {
	g := f.guard
	if g == nil {
		return 0, errZeroFunc
	}
	tok, ok := g.Acquire() // inlined: one atomic pair
	if !ok {
		return 0, f.denied()
	}
	// CallHeld spelled out: 12 instructions fewer (cachegrind).
	var fr native.IntsFrame
	fr.Set(f.addr, uint64(x), 0, 0, 0)
	r := int32(native.CallInts4Ret32(&fr))
	tok.Release()
	return r, nil
}

// Batch runs fn with the function's code pinned throughout (one token),
// so that fn can make many calls with [Func.CallHeld] (and the typed
// forms' CallHeld) at the cost of a bare native call each. A release of
// the code waits for fn to return. It returns the error a call would,
// without running fn, once the code is released or shutdown has begun.
// fn must not wait for the release or the Session's shutdown.
func (f Func) Batch(fn func()) error {
	tok, err := f.enter()
	if err != nil {
		return err
	}
	defer tok.Release()
	fn()
	return nil
}

// Batch runs fn under one keepalive token of the Session, as it did
// before calls pinned their code: shutdown waits for fn, and fn may call
// [Func.CallHeld] on code the controller does not release meanwhile (a
// JIT'd main still running, host code). It returns ErrShutDown, without
// running fn, once shutdown has begun. fn must not block on the Session's
// shutdown.
//
// Deprecated: use [Func.Batch], which also holds off the controller's
// release of the function's code (clang-repl's %quit, say).
func (e *Executor) Batch(fn func()) error {
	if !e.s.CallWithKeepalive(fn) {
		return ErrShutDown
	}
	return nil
}

// CallHeld calls the function as int32 f(int32). The caller must be
// inside f.Batch (or the Batch of a Func in the same allocation); it is
// then as cheap as a cgo call.
func (f Func) CallHeld(x int32) int32 {
	// The typed calls' path, cgo's wrappers skipped. addr is non-zero:
	// Executor.Func checked it.
	var fr native.IntsFrame
	fr.Set(f.addr, uint64(x), 0, 0, 0)
	return int32(native.CallInts4Ret32(&fr))
}

// shuttingDown reports whether the Session's shutdown has begun (its
// keepalive group is closed).
func (e *Executor) shuttingDown() bool { return e.s.KeepaliveSource().Group().Closing() }

// addHostSymbols publishes the host's symbols through the dylib manager.
func (e *Executor) addHostSymbols(syms []HostSymbol) error {
	installExportHandler()
	syms = append([]HostSymbol{{Name: ExportSymbol, Addr: native.ExportAddr()}}, syms...)
	for _, h := range syms {
		if err := e.dylibs.AddProcessSymbol(h.Name, sps.Addr(h.Addr)); err != nil {
			return fmt.Errorf("executor: host symbol: %w", err)
		}
	}
	return nil
}
