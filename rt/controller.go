package rt

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/orcgo/orcrt/rt/keepalive"
	"github.com/orcgo/orcrt/sps"
)

// ControllerAccess is the transport between a Session and its controller:
// the Go form of upstream's Session::ControllerAccess, implemented outside
// this package (the SimpleRemote wire CA) or by [Loopback]. It reaches the
// Session only through the [SessionHandle] given to Connect. Obligations:
//
//   - Connect(h, bi) is called once, synchronously, by Session.Attach; it
//     publishes bi and starts delivering messages. On failure it returns an
//     error (after calling h.NotifyDisconnected(err) itself, or the
//     Session does) and calls nothing more on h. A CallController may
//     arrive concurrently with Connect ([PendingCall.Handle]).
//   - Disconnect is called at most once and may race a remote disconnect;
//     the second of the two is a no-op. It may return before it completes.
//   - CallController(tag, args, call) takes ownership of args and completes
//     call exactly once: h.HandleControllerCallResult,
//     h.FailPendingControllerCall (the disconnect drain) or
//     h.FailControllerCallInline (already disconnecting), the check being
//     serialized with the drain.
//   - SendWrapperResult(callID, r) answers the call h.HandleWrapperCall
//     started with callID, from any goroutine (dropped once disconnecting);
//     r's bytes become the CA's.
//   - On disconnect the CA fails every pending controller call, then calls
//     h.NotifyDisconnected once (nil if orderly), then nothing more on h
//     but FailControllerCallInline for a racing CallController.
type ControllerAccess interface {
	Connect(h *SessionHandle, bi *BootstrapInfo) error
	Disconnect()
	CallController(tag sps.Addr, args []byte, call *PendingCall)
	SendWrapperResult(callID uint64, r WrapperResult)
}

// PendingCall is an outgoing controller call awaiting its result, opaque
// to the ControllerAccess, which completes it exactly once (a second
// completion panics).
type PendingCall struct {
	task       Task // the continuation, dispatched without another allocation
	onComplete func(WrapperResult)
	h          *SessionHandle
	result     WrapperResult
	done       atomic.Bool
	inline     bool // completed on the CA's goroutine (CallControllerInline)
}

func (c *PendingCall) runTask() { c.onComplete(c.result) }

// Handle returns the handle of the Session that made the call, the one
// Connect receives, for failing a call that arrives before Connect has
// stored it.
func (c *PendingCall) Handle() *SessionHandle { return c.h }

func (c *PendingCall) take() {
	if !c.done.CompareAndSwap(false, true) {
		panic("rt: controller call completed twice")
	}
}

// SessionHandle is a ControllerAccess's handle on its Session, one per
// Attach. All methods are safe for concurrent use.
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
// target (or the unknown-target handler, [Session.SetUnknownTargetHandler])
// in a dispatched Task under a keepalive token; the result goes back
// through SendWrapperResult with callID unless the Session has detached.
// While the Session shuts down the call is dropped silently. Ownership of
// args passes to the function.
func (h *SessionHandle) HandleWrapperCall(target sps.Addr, args []byte, callID uint64) {
	h.handleWrapperCall(target, args, callID, nil)
}

// DirectWrite is a call of a [Session.RegisterDirectWriter] function that
// the ControllerAccess copies to memory itself. From BeginDirectWrite to
// Finish or Drop it holds the call's keepalive token, so the memory it
// writes is not released meanwhile.
type DirectWrite struct {
	s   *Session
	tok keepalive.Token
}

// BeginDirectWrite starts a direct write for a call of target: ok is
// false, and the CA hands the call to HandleWrapperCall as usual, unless
// target was registered with RegisterDirectWriter and the Session still
// takes calls. The CA then copies the call's one buffer to its address
// and answers with Finish, or, when the connection fails first, Drop.
func (h *SessionHandle) BeginDirectWrite(target sps.Addr) (d DirectWrite, ok bool) {
	if h.notified.Load() {
		return DirectWrite{}, false
	}
	if e := h.s.lookupWrapper(target); e == nil || e.direct == nil {
		return DirectWrite{}, false
	}
	tok, ok := h.s.ka.Acquire()
	if !ok {
		return DirectWrite{}, false
	}
	return DirectWrite{s: h.s, tok: tok}, true
}

// Finish answers the call callID of target, whose write stopped at fault
// (nil: it was done), in a dispatched Task holding d's token.
func (d DirectWrite) Finish(target sps.Addr, callID uint64, fault *WriteFault) {
	c := getWrapperCall()
	c.s, c.target, c.callID, c.direct, c.fault = d.s, target, callID, true, fault
	c.refs.Store(2)
	c.task.r, c.task.tok = c, d.tok
	d.s.dispatch.Dispatch(&c.task)
}

// Drop releases d's token without an answer.
func (d DirectWrite) Drop() { d.tok.Release() }

// ReleaseFunc gives back an argument buffer lent with
// [SessionHandle.HandleWrapperCallReleasing]; the CA may then reuse it.
type ReleaseFunc func(args []byte)

// HandleWrapperCallReleasing is [SessionHandle.HandleWrapperCall] for a
// ControllerAccess that recycles argument buffers. For a target that
// borrows its arguments ([BorrowArgs]) the Session calls release(args)
// exactly once: after the function has returned and called ret and the
// CA's SendWrapperResult for the call has returned, or at once for a call
// that is dropped. For an owning target release is never called. release
// may run on any goroutine and must not block.
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

// wrapperCall is one incoming wrapper call. It returns to the pool only
// after a borrowing target has returned and called ret (refs 0); an
// owning function may keep ret, so its object is left to the GC.
type wrapperCall struct {
	task     Task
	s        *Session
	target   sps.Addr
	args     []byte
	callID   uint64
	direct   bool        // a DirectWrite: run the entry's direct form
	fault    *WriteFault // where it stopped, or nil
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
		if c.direct {
			e.direct(s, c.fault, c.retFn)
		} else {
			e.fn(s, c.args, c.retFn)
		}
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

// unref drops one of a borrowed call's two references (running function,
// pending ret); the last one releases args and recycles c.
func (c *wrapperCall) unref() {
	if c.refs.Add(-1) != 0 {
		return
	}
	args, release := c.args, c.release
	c.task.r, c.task.tok = nil, keepalive.Token{}
	c.task.state.Store(0)
	c.s, c.target, c.args, c.callID, c.release, c.borrow = nil, 0, nil, 0, nil, false
	c.direct, c.fault = false, nil
	c.returned.Store(false)
	if release != nil {
		release(args)
	}
	wrapperCallPool.Put(c)
}

// HandleControllerCallResult completes call with the controller's result
// in a dispatched Task under a fresh keepalive token. After the group has
// closed (a CA contract violation) it is reported and the continuation
// runs inline with "disconnected".
func (h *SessionHandle) HandleControllerCallResult(call *PendingCall, r WrapperResult) {
	if h.afterNotify("HandleControllerCallResult") {
		return
	}
	h.complete(call, r, "HandleControllerCallResult")
}

// FailPendingControllerCall completes call with the out-of-band error
// "disconnected", dispatched like a real result: the disconnect drain.
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
	if call.inline {
		defer tok.Release()
		call.onComplete(r)
		return
	}
	call.result = r
	call.task.r, call.task.tok = call, tok
	s.dispatch.Dispatch(&call.task)
}

// FailControllerCallInline completes call with "disconnected" on the
// calling goroutine, for a CallController while disconnecting.
func (h *SessionHandle) FailControllerCallInline(call *PendingCall) {
	call.take()
	call.onComplete(OutOfBandResult(MsgDisconnected))
}

// NotifyDisconnected tells the Session the connection has ended (nil if
// orderly), exactly once (a second call panics) and after every pending
// controller call has been failed. It runs the detach path on the calling
// goroutine.
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

// CallController calls the controller handler named by tag and completes
// onComplete exactly once: later in a dispatched Task, or inline with
// "no controller attached" (none attached) or "disconnected". Ownership
// of args passes to the Session.
func (s *Session) CallController(tag sps.Addr, args []byte, onComplete func(WrapperResult)) {
	a := s.attached.Load()
	if a == nil {
		onComplete(OutOfBandResult(MsgNoController))
		return
	}
	a.ca.CallController(tag, args, &PendingCall{onComplete: onComplete, h: a.h})
}

// CallControllerInline is CallController with onComplete run on the
// ControllerAccess's own goroutine (its connection's reader) instead of a
// dispatched Task: one goroutine hand-off fewer for a caller waiting on
// the result. onComplete must not block, nor wait for anything the
// connection has yet to deliver; results read after this one wait until
// it returns.
func (s *Session) CallControllerInline(tag sps.Addr, args []byte, onComplete func(WrapperResult)) {
	a := s.attached.Load()
	if a == nil {
		onComplete(OutOfBandResult(MsgNoController))
		return
	}
	a.ca.CallController(tag, args, &PendingCall{onComplete: onComplete, h: a.h, inline: true})
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
