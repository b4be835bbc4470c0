//go:build cgo

package call

import (
	"errors"

	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/rt/keepalive"
)

// ErrShutDown is returned by a [Func] call once the Session's shutdown
// has begun: the code it would call may be gone.
var ErrShutDown = errors.New("executor: the session is shutting down; JIT'd code may not be called")

// ErrReleased is returned by a [Func] call once the controller has begun
// to release or deinitialize the allocation holding the function: the code
// may be gone, so it is not called.
var ErrReleased = errors.New("executor: the controller has released the JIT'd code; it may not be called")

// Func is a JIT'd function a host has found (executor.Executor.Lookup,
// jit.Module.Lookup) or been given (JIT'd code calling a host function
// with its address, say). A call pins the allocation holding the code:
// the controller's release or deinitialize of that allocation waits until
// calls in flight have returned (alloc.Config.PinWait bounds the wait)
// and calls that start later fail with [ErrReleased]; session shutdown
// waits the same way and later calls fail with [ErrShutDown]. Code in the
// shared-memory mapper's allocations is pinned alike. Code in other
// allocations that the function calls is not pinned. Code outside JIT'd
// memory (a host function) is guarded by a Session keepalive token
// instead. A Func is a small value; copy it freely and call it from any
// goroutine. Call it as int32 f(int32) with [Func.Call], or with its real
// C signature through the typed forms ([Typed1] and its siblings).
type Func struct {
	guard   *keepalive.Group // the allocation's pin, or the Session's keepalive group
	session *keepalive.Group // the Session's keepalive group: closing once shutdown has begun
	addr    uintptr
	pinned  bool  // guard is an allocation's pin
	tiers   tiers // how calls enter the code (tier.go)
}

// NewFunc returns the function at addr, which the caller has checked is
// executable code, guarded by pin: the keepalive group of the allocation
// holding it, or session (the Session's keepalive group) for code outside
// JIT'd memory. A call denied by pin fails with [ErrReleased], or with
// [ErrShutDown] once session is closing. executor.Executor.Func makes
// Funcs this way.
func NewFunc(addr uintptr, pin, session *keepalive.Group) Func {
	return Func{guard: pin, session: session, addr: addr, pinned: pin != session}
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
	if !f.pinned || f.session.Closing() {
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
	r := f.CallHeld(x)
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

// CallHeld calls the function as int32 f(int32). The caller must be
// inside f.Batch (or the Batch of a Func in the same allocation); it is
// then as cheap as a cgo call.
func (f Func) CallHeld(x int32) int32 {
	// The typed calls' path, cgo's wrappers skipped. addr is non-zero:
	// executor.Executor.Func checked it.
	if f.tiers.tier() != TierCgo {
		return int32(sig{addr: f.addr, code: uint64(f.tiers) << tiersPos}.callHeld(uint64(x), 0, 0, 0))
	}
	var fr native.IntsFrame
	fr.Set(f.addr, uint64(x), 0, 0, 0)
	return int32(native.CallInts4Ret32(&fr))
}
