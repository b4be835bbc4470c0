//go:build cgo

package executor

import (
	"errors"
	"fmt"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/codemap"
	"github.com/orcgo/orcrt/rt/native"
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

// Func is a JIT'd function int32 f(int32) a host has been given (by JIT'd
// code calling a host function with its address, say). Calling it holds a
// keepalive token of the Session, so the code cannot be released while it
// runs, and fails with ErrShutDown once shutdown has begun. A Func is a
// small value; copy it freely and call it from any goroutine.
type Func struct {
	s    *rt.Session
	addr uintptr
}

// Func returns the JIT'd function at addr. It fails if addr is not
// executable code in this process (package codemap).
func (e *Executor) Func(addr uintptr) (Func, error) {
	if addr == 0 {
		return Func{}, errors.New("executor: Func at address 0")
	}
	if err := codemap.Check(addr); err != nil {
		return Func{}, fmt.Errorf("executor: Func: %w", err)
	}
	return Func{s: e.s, addr: addr}, nil
}

// Addr returns the function's address.
func (f Func) Addr() uintptr { return f.addr }

// Call calls the function with x under a keepalive token of its own.
func (f Func) Call(x int32) (int32, error) {
	tok, err := f.s.AcquireKeepalive()
	if err != nil {
		return 0, ErrShutDown
	}
	r, err := native.CallIntInt(f.addr, x)
	tok.Release()
	return r, err
}

// Batch runs fn with one keepalive token held throughout, so that fn can
// make many calls with [Func.CallHeld] at the cost of a bare native call
// each. It returns ErrShutDown, without running fn, once shutdown has
// begun. fn must not block on the Session's shutdown.
func (e *Executor) Batch(fn func()) error {
	if !e.s.CallWithKeepalive(fn) {
		return ErrShutDown
	}
	return nil
}

// CallHeld calls the function with x. The caller must hold a keepalive
// token (inside [Executor.Batch]); it is then as cheap as a cgo call.
func (f Func) CallHeld(x int32) int32 {
	r, _ := native.CallIntInt(f.addr, x) // addr is non-zero: Executor.Func checked it
	return r
}

// addHostSymbols publishes the host's symbols through the dylib manager.
func (e *Executor) addHostSymbols(syms []HostSymbol) error {
	for _, h := range syms {
		if err := e.dylibs.AddProcessSymbol(h.Name, sps.Addr(h.Addr)); err != nil {
			return fmt.Errorf("executor: host symbol: %w", err)
		}
	}
	return nil
}
