package rt

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/orcgo/orcrt/sps"
)

// Loopback is a ControllerAccess whose controller lives in the same
// process (upstream's InProcessControllerAccess). The controller side, a
// [LoopbackController], is created at Connect and handed to onConnect.
//
// A disconnect, local or [LoopbackController.Disconnect], stops new
// messages; once none is in flight, the goroutine of the last one fails
// both sides' pending calls with "disconnected" and notifies the Session
// with nil. Disconnect never blocks, so it is safe inside a message. Each
// direction numbers its calls from 0; a result for an id that is not
// pending is reported as "Invalid call id".
type Loopback struct {
	onConnect func(*LoopbackController, *BootstrapInfo) error

	mu        sync.Mutex
	drained   sync.Cond // signalled when inFlight drops to 0
	h         *SessionHandle
	ctl       *LoopbackController
	connected bool
	finishing bool // the disconnect drain has been claimed
	inFlight  int
	nextID    uint64
	pending   map[uint64]*PendingCall
}

// NewLoopback returns an unconnected loopback CA. onConnect (may be nil)
// runs inside Connect; an error from it fails the attach as the
// disconnect error.
func NewLoopback(onConnect func(ctl *LoopbackController, bi *BootstrapInfo) error) *Loopback {
	l := &Loopback{onConnect: onConnect, pending: map[uint64]*PendingCall{}}
	l.drained.L = &l.mu
	return l
}

// Controller returns the controller side (nil before Connect).
func (l *Loopback) Controller() *LoopbackController {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ctl
}

// Connect implements ControllerAccess.
func (l *Loopback) Connect(h *SessionHandle, bi *BootstrapInfo) error {
	l.mu.Lock()
	if l.h != nil {
		l.mu.Unlock()
		return errors.New("rt: loopback: Connect called twice")
	}
	ctl := &LoopbackController{l: l, bi: bi, handlers: map[sps.Addr]ControllerHandler{}, pending: map[uint64]func(WrapperResult){}}
	l.h, l.ctl, l.connected = h, ctl, true
	l.mu.Unlock()
	if l.onConnect == nil {
		return nil
	}
	err := l.onConnect(ctl, bi)
	if err == nil {
		return nil
	}
	err = fmt.Errorf("rt: loopback: OnConnect: %w", err)
	// Close and wait for messages the controller started during
	// onConnect, then drain and notify with the error ourselves.
	l.mu.Lock()
	if !l.connected || l.finishing {
		// The controller disconnected during onConnect; its drain owns
		// the notification.
		l.mu.Unlock()
		return err
	}
	// Claim the drain before waiting, so the last message out does not
	// run it (and notify) itself.
	l.connected, l.finishing = false, true
	for l.inFlight > 0 {
		l.drained.Wait()
	}
	l.mu.Unlock()
	l.finish(err)
	return err
}

// Disconnect implements ControllerAccess: it is idempotent and never
// blocks.
func (l *Loopback) Disconnect() { l.disconnect() }

func (l *Loopback) disconnect() {
	l.mu.Lock()
	if !l.connected {
		l.mu.Unlock()
		return
	}
	l.connected = false
	if l.inFlight > 0 || l.finishing {
		l.mu.Unlock() // the last message out drains
		return
	}
	l.finishing = true
	l.mu.Unlock()
	l.finish(nil)
}

// enter starts a message scope; false means the connection is closed.
func (l *Loopback) enter() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.connected {
		return false
	}
	l.inFlight++
	return true
}

// leave ends a message scope, running the disconnect drain if this was
// the last message of a closed connection.
func (l *Loopback) leave() {
	l.mu.Lock()
	l.inFlight--
	if l.inFlight > 0 {
		l.mu.Unlock()
		return
	}
	l.drained.Broadcast()
	if l.connected || l.finishing {
		l.mu.Unlock()
		return
	}
	l.finishing = true
	l.mu.Unlock()
	l.finish(nil)
}

// finish drains both sides' pending calls, then notifies the Session.
func (l *Loopback) finish(err error) {
	l.mu.Lock()
	pend := l.pending
	l.pending = map[uint64]*PendingCall{}
	l.mu.Unlock()
	for _, id := range slices.Sorted(maps.Keys(pend)) {
		l.h.FailPendingControllerCall(pend[id])
	}
	l.ctl.failAll()
	l.h.NotifyDisconnected(err)
}

// CallController implements ControllerAccess: the controller handler for
// tag runs on the calling goroutine (it may answer later).
func (l *Loopback) CallController(tag sps.Addr, args []byte, call *PendingCall) {
	l.mu.Lock()
	if !l.connected {
		l.mu.Unlock()
		call.Handle().FailControllerCallInline(call) // l.h may not be set yet
		return
	}
	id := l.nextID
	l.nextID++
	l.pending[id] = call
	ctl := l.ctl
	l.mu.Unlock()
	ctl.handleCall(tag, id, args)
}

// SendWrapperResult implements ControllerAccess: the result goes to the
// controller's callback for callID (dropped once disconnected).
func (l *Loopback) SendWrapperResult(callID uint64, r WrapperResult) {
	if !l.enter() {
		return
	}
	defer l.leave()
	l.ctl.deliver(callID, r)
}

// returnResult completes executor->controller call id.
func (l *Loopback) returnResult(id uint64, r WrapperResult) {
	if !l.enter() {
		return // already drained with "disconnected"
	}
	defer l.leave()
	l.mu.Lock()
	call, ok := l.pending[id]
	delete(l.pending, id)
	l.mu.Unlock()
	if !ok {
		l.h.ReportError(fmt.Errorf("rt: loopback: %s %d", MsgInvalidCallID, id))
		return
	}
	l.h.HandleControllerCallResult(call, r)
}

// ControllerHandler answers an executor->controller call: it must
// eventually call ctl.ReturnResult(callID, result) exactly once.
type ControllerHandler func(ctl *LoopbackController, callID uint64, args []byte)

// LoopbackController is the controller side of a Loopback connection. Its
// methods are safe for concurrent use.
type LoopbackController struct {
	l  *Loopback
	bi *BootstrapInfo

	mu       sync.Mutex
	handlers map[sps.Addr]ControllerHandler
	nextID   uint64
	pending  map[uint64]func(WrapperResult)
}

// Bootstrap returns the bootstrap info the executor connected with.
func (c *LoopbackController) Bootstrap() *BootstrapInfo { return c.bi }

// Lookup resolves a bootstrap symbol.
func (c *LoopbackController) Lookup(name string) (sps.Addr, bool) { return c.bi.Symbols.Lookup(name) }

// RegisterHandler makes h answer executor calls to tag.
func (c *LoopbackController) RegisterHandler(tag sps.Addr, h ControllerHandler) {
	c.mu.Lock()
	c.handlers[tag] = h
	c.mu.Unlock()
}

// RegisterFunc makes f answer executor calls to tag synchronously.
func (c *LoopbackController) RegisterFunc(tag sps.Addr, f func(args []byte) WrapperResult) {
	c.RegisterHandler(tag, func(ctl *LoopbackController, id uint64, args []byte) {
		ctl.ReturnResult(id, f(args))
	})
}

// ReturnResult answers executor->controller call callID. An id that is
// not pending is reported to the Session as "Invalid call id"; after
// disconnect the result is dropped.
func (c *LoopbackController) ReturnResult(callID uint64, r WrapperResult) {
	c.l.returnResult(callID, r)
}

func (c *LoopbackController) handleCall(tag sps.Addr, id uint64, args []byte) {
	c.mu.Lock()
	h, ok := c.handlers[tag]
	c.mu.Unlock()
	if !ok {
		c.ReturnResult(id, OutOfBandResult(fmt.Sprintf("rt: loopback controller has no handler for tag %#x", uint64(tag))))
		return
	}
	h(c, id, args)
}

// CallWrapper calls the executor wrapper function at target with args
// (ownership passes) and calls onResult exactly once with its result, or
// with "disconnected" when the connection closes first.
func (c *LoopbackController) CallWrapper(target sps.Addr, args []byte, onResult func(WrapperResult)) {
	if !c.l.enter() {
		onResult(OutOfBandResult(MsgDisconnected))
		return
	}
	defer c.l.leave()
	c.mu.Lock()
	id := c.nextID
	c.nextID++
	c.pending[id] = onResult
	c.mu.Unlock()
	c.l.h.HandleWrapperCall(target, args, id)
}

// Caller returns a Caller for the executor wrapper at target.
func (c *LoopbackController) Caller(target sps.Addr) Caller {
	return func(args []byte, onResult func(WrapperResult)) { c.CallWrapper(target, args, onResult) }
}

// Disconnect is a controller-initiated (remote) orderly disconnect.
func (c *LoopbackController) Disconnect() { c.l.disconnect() }

func (c *LoopbackController) deliver(id uint64, r WrapperResult) {
	c.mu.Lock()
	f, ok := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if !ok {
		c.l.h.ReportError(fmt.Errorf("rt: loopback controller: %s %d", MsgInvalidCallID, id))
		return
	}
	f(r)
}

// failAll fails the controller's pending calls at disconnect, in id order.
func (c *LoopbackController) failAll() {
	c.mu.Lock()
	pend := c.pending
	c.pending = map[uint64]func(WrapperResult){}
	c.mu.Unlock()
	for _, id := range slices.Sorted(maps.Keys(pend)) {
		pend[id](OutOfBandResult(MsgDisconnected))
	}
}
