package rt

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/orcgo/orcrt/rt/keepalive"
	"github.com/orcgo/orcrt/sps"
)

// ControllerAccess is a pluggable transport between a Session and its
// controller (LLVM's ExecutorProcessControl): the Go form of upstream's
// Session::ControllerAccess. Implementations live outside this package
// (the SimpleRemote wire CA) or in it ([Loopback]); they reach the Session
// only through the [SessionHandle] given to Connect.
//
// Obligations of an implementation:
//
//   - Connect(h, bi) is called once, synchronously, by Session.Attach. It
//     makes bi (symbols and values) available to the controller and starts
//     delivering messages; no h.HandleWrapperCall may precede the call of
//     Connect. On failure it returns a non-nil error; it may call
//     h.NotifyDisconnected(err) itself first, and if it does not, the
//     Session does so on its behalf with the returned error. Either way
//     nothing more may be called on h after a failed Connect. The Session
//     publishes the CA just before calling Connect, so a CallController
//     from another goroutine may arrive concurrently with Connect (see
//     [PendingCall.Handle]); SendWrapperResult only ever follows a
//     HandleWrapperCall.
//   - Disconnect is called at most once by the Session, and may race a
//     disconnect initiated by the controller; the second of the two must be
//     a no-op. It may return before the disconnect completes.
//   - CallController(tag, args, call) sends args to the controller handler
//     named by tag. call must be completed exactly once, by exactly one of:
//     h.HandleControllerCallResult (the real result), h.FailPendingControllerCall
//     (during the disconnect drain), or h.FailControllerCallInline (when the
//     CA is already disconnecting; runs the continuation on the calling
//     goroutine). The "disconnecting?" check must be serialised with the
//     drain, so a racing call is either drained or failed inline. Ownership
//     of args passes to the CA.
//   - SendWrapperResult(callID, r) sends a wrapper function's result back
//     for the call that h.HandleWrapperCall started with callID. It may be
//     called from any goroutine, also while or after disconnecting (drop
//     it then). Ownership of r's bytes passes to the CA.
//   - On disconnect (local or remote, orderly or not) the CA first fails
//     every pending controller call with h.FailPendingControllerCall — the
//     keepalive group is still open then — and then calls
//     h.NotifyDisconnected exactly once, with nil for an orderly disconnect
//     or the terminal error. After NotifyDisconnected it makes no more
//     calls on h, except FailControllerCallInline for a CallController that
//     raced the disconnect. (Late calls are reported and dropped.)
type ControllerAccess interface {
	Connect(h *SessionHandle, bi *BootstrapInfo) error
	Disconnect()
	CallController(tag sps.Addr, args []byte, call *PendingCall)
	SendWrapperResult(callID uint64, r WrapperResult)
}

// PendingCall is an outgoing controller call awaiting its result: opaque
// to the ControllerAccess, which stores it and completes it exactly once
// through its SessionHandle (a second completion panics).
type PendingCall struct {
	task       Task // the continuation, dispatched without another allocation
	onComplete func(WrapperResult)
	h          *SessionHandle
	result     WrapperResult
	done       atomic.Bool
}

func (c *PendingCall) runTask() { c.onComplete(c.result) }

// Handle returns the handle of the Session that made the call: the same
// handle Connect receives. A CA can use it to fail a call that reaches it
// before (or while) Connect stores its handle — the Session publishes its
// ControllerAccess before calling Connect, so a CallController from
// another goroutine may arrive that early.
func (c *PendingCall) Handle() *SessionHandle { return c.h }

func (c *PendingCall) take() {
	if !c.done.CompareAndSwap(false, true) {
		panic("rt: controller call completed twice")
	}
}

// SessionHandle is a ControllerAccess's handle on its Session: the hooks
// upstream gives CA subclasses as protected methods. The Session creates
// one per Attach and passes it to Connect. All methods are safe for
// concurrent use.
type SessionHandle struct {
	s        *Session
	notified atomic.Bool
}

// Session returns the Session this handle belongs to.
func (h *SessionHandle) Session() *Session { return h.s }

// afterNotify reports a call made after NotifyDisconnected, which breaks
// the CA contract, and reports whether the call must be dropped.
func (h *SessionHandle) afterNotify(what string) bool {
	if !h.notified.Load() {
		return false
	}
	h.s.ReportError(fmt.Errorf("rt: ControllerAccess called %s after NotifyDisconnected (dropped)", what))
	return true
}

// HandleWrapperCall runs the controller's call of the wrapper function at
// target. It takes a keepalive token — if that fails (the Session is
// shutting down) the call is dropped silently: the controller has already
// failed it on its side, and no result is sent. Otherwise it dispatches a
// Task that runs the function; the token covers only the function's
// synchronous execution. The function's result goes back through the CA's
// SendWrapperResult with callID, unless the Session has detached by then
// (the result is dropped). An address with no registered wrapper goes to
// the Session's unknown-target handler (see
// [Session.SetUnknownTargetHandler]).
//
// Ownership of args passes to the Session and then to the wrapper
// function, which may keep it (a wrapper registered with [BorrowArgs]
// does not, but the CA does not learn when it is done; see
// [SessionHandle.HandleWrapperCallReleasing]).
func (h *SessionHandle) HandleWrapperCall(target sps.Addr, args []byte, callID uint64) {
	h.handleWrapperCall(target, args, callID, nil)
}

// ReleaseFunc takes back an argument buffer that a ControllerAccess lent
// the Session with [SessionHandle.HandleWrapperCallReleasing]: from the
// call on, the CA may reuse args (its whole capacity) for anything.
type ReleaseFunc func(args []byte)

// HandleWrapperCallReleasing is [SessionHandle.HandleWrapperCall] for a
// ControllerAccess that recycles its argument buffers. If the call's
// target borrows its arguments — a wrapper registered with [BorrowArgs],
// or an unknown-target handler installed with it — the Session calls
// release(args) exactly once, when nothing in the Session can see args
// any more: after the function has returned and called ret, and the CA's
// SendWrapperResult for the call has returned (so a CA that writes the
// result synchronously may even be handed result bytes that were computed
// from args). release is also called, at once, for a call that is not
// run: dropped because the Session is shutting down (before
// HandleWrapperCallReleasing returns) or dropped by the Dispatcher. For a
// target that owns its arguments (the default) release is never called:
// the buffer belongs to the function, exactly as with HandleWrapperCall.
//
// release may be called on any goroutine — the wrapper's, the one
// calling ret, or the caller's — and must not block. Bind it once (a
// method value kept by the CA), so that a call costs no allocation.
func (h *SessionHandle) HandleWrapperCallReleasing(target sps.Addr, args []byte, callID uint64, release ReleaseFunc) {
	h.handleWrapperCall(target, args, callID, release)
}

func (h *SessionHandle) handleWrapperCall(target sps.Addr, args []byte, callID uint64, release ReleaseFunc) {
	if h.afterNotify("HandleWrapperCall") {
		if release != nil {
			release(args)
		}
		return
	}
	s := h.s
	tok, ok := s.ka.Acquire()
	if !ok {
		if release != nil {
			release(args)
		}
		return
	}
	c := getWrapperCall()
	c.s, c.target, c.args, c.callID, c.release = s, target, args, callID, release
	c.refs.Store(2)
	c.task.r, c.task.tok = c, tok
	s.dispatch.Dispatch(&c.task)
}

// wrapperCall is one incoming wrapper call: its Task, its return state
// and its bound ReturnFunc in one object. Objects come from a pool and go
// back to it only after a call whose target borrows its arguments, once
// that target has both returned and called ret (refs reaches 0): an
// owning function may keep ret, so its call object is left to the
// garbage collector.
type wrapperCall struct {
	task     Task
	s        *Session
	target   sps.Addr
	args     []byte
	callID   uint64
	release  ReleaseFunc
	retFn    ReturnFunc // c.ret, bound once per object
	borrow   bool       // the target borrows args; set before it runs
	refs     atomic.Int32
	returned atomic.Bool
}

var wrapperCallPool sync.Pool // of *wrapperCall

func getWrapperCall() *wrapperCall {
	if c, ok := wrapperCallPool.Get().(*wrapperCall); ok {
		return c
	}
	c := &wrapperCall{}
	c.retFn = c.ret
	return c
}

func (c *wrapperCall) runTask() {
	s := c.s
	if e := s.lookupWrapper(c.target); e != nil {
		c.borrow = e.borrow
		e.fn(s, c.args, c.retFn)
	} else {
		u := s.unknownTarget()
		c.borrow = u.borrow
		u.fn(s, c.target, c.args, c.retFn)
	}
	if c.borrow {
		c.unref() // c may be reused from here on
	}
}

// dropTask: the Dispatcher dropped the call; nothing saw args or ret.
func (c *wrapperCall) dropTask() {
	c.refs.Store(1)
	c.unref()
}

func (c *wrapperCall) ret(r WrapperResult) {
	if c.returned.Swap(true) {
		panic("rt: wrapper function returned its result twice")
	}
	c.s.sendWrapperResult(c.callID, r)
	if c.borrow {
		c.unref() // c may be reused from here on
	}
}

// unref drops one of the two references of a borrowed call (the running
// function, the pending ret); the last one gives the argument buffer
// back to the CA and the object back to the pool.
func (c *wrapperCall) unref() {
	if c.refs.Add(-1) != 0 {
		return
	}
	args, release := c.args, c.release
	c.task.r, c.task.tok = nil, keepalive.Token{}
	c.task.state.Store(0)
	c.s, c.target, c.args, c.callID, c.release, c.borrow = nil, 0, nil, 0, nil, false
	c.returned.Store(false)
	if release != nil {
		release(args)
	}
	wrapperCallPool.Put(c)
}

// HandleControllerCallResult completes call with the controller's result:
// it takes a fresh keepalive token and dispatches a Task running the
// call's continuation. A result arriving after the keepalive group closed
// breaks the CA contract (upstream aborts): it is reported, and the
// continuation runs inline with the out-of-band error "disconnected".
func (h *SessionHandle) HandleControllerCallResult(call *PendingCall, r WrapperResult) {
	if h.afterNotify("HandleControllerCallResult") {
		return
	}
	h.complete(call, r, "HandleControllerCallResult")
}

// FailPendingControllerCall completes call with the out-of-band error
// "disconnected", dispatched under a fresh token like a real result. CAs
// use it to drain pending calls before NotifyDisconnected.
func (h *SessionHandle) FailPendingControllerCall(call *PendingCall) {
	if h.afterNotify("FailPendingControllerCall") {
		return
	}
	h.complete(call, OutOfBandResult(MsgDisconnected), "FailPendingControllerCall")
}

func (h *SessionHandle) complete(call *PendingCall, r WrapperResult, what string) {
	call.take()
	s := h.s
	tok, ok := s.ka.Acquire()
	if !ok {
		s.ReportError(fmt.Errorf("rt: ControllerAccess called %s after the keepalive group closed; completing the call inline with %q", what, MsgDisconnected))
		call.onComplete(OutOfBandResult(MsgDisconnected))
		return
	}
	call.result = r
	call.task.r, call.task.tok = call, tok
	s.dispatch.Dispatch(&call.task)
}

// FailControllerCallInline completes call with the out-of-band error
// "disconnected" on the calling goroutine, without a token and without
// dispatch. A CA uses it from CallController when it is already
// disconnecting.
func (h *SessionHandle) FailControllerCallInline(call *PendingCall) {
	call.take()
	call.onComplete(OutOfBandResult(MsgDisconnected))
}

// NotifyDisconnected tells the Session the connection has ended: nil for
// an orderly disconnect, otherwise the terminal error. It must be called
// exactly once (a second call panics), after every pending controller
// call has been failed. It runs the Session's detach path on the calling
// goroutine: the OnDisconnect handler, then the services' OnDetach chain
// (and, if shutdown was requested, possibly shutdown itself).
func (h *SessionHandle) NotifyDisconnected(err error) {
	if !h.notified.CompareAndSwap(false, true) {
		panic("rt: ControllerAccess called NotifyDisconnected twice")
	}
	h.s.handleDisconnect(err)
}

// ReportError passes err to the Session's error reporter.
func (h *SessionHandle) ReportError(err error) {
	if h.afterNotify("ReportError") {
		return
	}
	h.s.ReportError(err)
}

// CallController calls the controller handler named by tag with args and
// completes onComplete exactly once with its result. With no controller
// attached (before Attach or after detach) onComplete runs at once, on the
// calling goroutine, with the out-of-band error "no controller attached";
// if the CA is disconnecting it may also run inline, with "disconnected".
// Otherwise it runs later in a dispatched Task. Ownership of args passes
// to the Session.
func (s *Session) CallController(tag sps.Addr, args []byte, onComplete func(WrapperResult)) {
	a := s.attached.Load()
	if a == nil {
		onComplete(OutOfBandResult(MsgNoController))
		return
	}
	a.ca.CallController(tag, args, &PendingCall{onComplete: onComplete, h: a.h})
}

// ControllerCaller returns a Caller that calls the controller handler
// named by tag through CallController.
func (s *Session) ControllerCaller(tag sps.Addr) Caller {
	return func(args []byte, onResult func(WrapperResult)) {
		s.CallController(tag, args, onResult)
	}
}

// sendWrapperResult forwards a wrapper result to the attached CA, or
// drops it if none is attached.
func (s *Session) sendWrapperResult(callID uint64, r WrapperResult) {
	if a := s.attached.Load(); a != nil {
		a.ca.SendWrapperResult(callID, r)
	}
}
