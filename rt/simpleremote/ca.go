package simpleremote

import (
	"errors"
	"io"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/sps"
)

// Conn is the byte stream a CA speaks over; Close ends both directions
// (the controller must see end of input). A Conn that is also a
// syscall.Conn gets each message out in one writev.
type Conn interface {
	io.Reader
	io.Writer
	io.Closer
}

// Options configure a CA. The zero value gives the defaults.
type Options struct {
	// MaxMessageSize bounds MsgSize (header included) of incoming
	// messages; 0 means DefaultMaxMessageSize.
	MaxMessageSize uint64
	// ReadBufferSize is the read-ahead buffer; 0 means
	// DefaultReadBufferSize.
	ReadBufferSize int
	// HangupTimeout bounds how long a local Disconnect tries to send its
	// Hangup before closing anyway (the controller may not be reading);
	// 0 means DefaultHangupTimeout, negative means close without Hangup.
	HangupTimeout time.Duration
	// ReadSpin, if positive, is how long the reader polls the connection
	// for the controller's next message before it sleeps: on Linux, on
	// more than one CPU, and only while the controller's recent answers
	// came that fast. Zero never polls. It applies to this package's
	// Conns and to wrappers that pass SetReadSpin on. While it polls,
	// other goroutines of the process run, but those waiting for other
	// descriptors are woken only once it stops (up to ReadSpin late): a
	// process that is mostly its executor (orcrt-executor uses
	// ExecutorReadSpin) gains, a host busy with other I/O may not.
	ReadSpin time.Duration
	// Wire is what a Result's tag and a Hangup's payload mean: the
	// Session's dialect's (executor.Serve sets it); the zero value is
	// LLVM 14-23's.
	Wire dialect.WireProtocol
}

// ExecutorReadSpin is orcrt-executor's Options.ReadSpin: it covers a
// controller's turnaround between back-to-back calls on an unpinned
// 2-core machine, whose idle CPU otherwise takes a wake-up of tens of
// microseconds per message (RATIONALE.md, "Polling before parking").
const ExecutorReadSpin = 100 * time.Microsecond

// DefaultHangupTimeout is the default Options.HangupTimeout.
const DefaultHangupTimeout = 5 * time.Second

// hangupPayload is SPSError success.
var hangupPayload = []byte{0}

const (
	stateIdle      int32 = iota // not connected yet
	stateConnected              // running
	stateClosing                // teardown started; no new sends, calls fail inline
	stateClosed                 // drained; NotifyDisconnected is being or was called
)

// CA is the executor side's rt.ControllerAccess over one Conn.
type CA struct {
	conn Conn
	opts Options
	rd   *Reader
	wr   *Writer
	pool payloadPool    // CallWrapper payloads lent to the Session
	rel  rt.ReleaseFunc // pool.put, bound once

	state    atomic.Int32  // also read without mu on the result path
	received atomic.Uint64 // messages the controller sent, stored when the reader ends

	mu         sync.Mutex
	h          *rt.SessionHandle
	nextSeq    uint64
	pending    map[uint64]*rt.PendingCall
	termErr    error         // the terminal error, fixed when leaving stateConnected
	hangupDone chan struct{} // set by a local Disconnect that sends Hangup

	closeOnce sync.Once
	done      chan struct{}
}

var _ rt.ControllerAccess = (*CA)(nil)

// New returns a CA that will speak over conn once a Session attaches it,
// owning conn from then on. opts may be nil.
func New(conn Conn, opts *Options) *CA {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.HangupTimeout == 0 {
		o.HangupTimeout = DefaultHangupTimeout
	}
	if rs, ok := conn.(interface{ SetReadSpin(time.Duration) }); ok && o.ReadSpin > 0 {
		rs.SetReadSpin(o.ReadSpin)
	}
	ca := &CA{
		conn:    conn,
		opts:    o,
		rd:      NewReader(conn, o.MaxMessageSize, o.ReadBufferSize),
		wr:      NewWriter(conn),
		pending: map[uint64]*rt.PendingCall{},
		done:    make(chan struct{}),
	}
	ca.rd.pool = &ca.pool
	ca.rel = ca.pool.put
	return ca
}

// Connect implements rt.ControllerAccess: it sends Setup
// (docs/protocol.md §3) first and starts the reader; if Setup cannot be
// sent it tears down, notifies the Session and returns the error.
func (ca *CA) Connect(h *rt.SessionHandle, bi *rt.BootstrapInfo) error {
	payload := bi.SetupPayload()

	ca.mu.Lock()
	if ca.state.Load() != stateIdle {
		ca.mu.Unlock()
		return errors.New("simpleremote: Connect on a CA that is already connected or closed")
	}
	ca.h = h
	if kr, ok := ca.conn.(KernelReader); ok && kr.KernelReads() {
		ca.rd.direct = h.BeginDirectWrite
	}
	ca.state.Store(stateConnected)
	// Hold the writer until Setup is out; a racing CallController waits.
	ca.wr.mu.Lock()
	ca.mu.Unlock()
	err := ca.wr.writeMsgLocked(OpSetup, 0, 0, payload)
	ca.wr.mu.Unlock()
	if err != nil {
		ca.fail(err)
		ca.finish(nil)
		return ca.Err()
	}
	go ca.readLoop()
	return nil
}

// readLoop is the connection's only reader; it never runs a call.
func (ca *CA) readLoop() {
	var err error
	hungUp := false
	var n uint64 // counted here, published once: nothing on the per-message path
loop:
	for {
		hdr, payload, direct, rerr := ca.rd.next()
		if ca.state.Load() != stateConnected {
			break // torn down locally (Disconnect or a failed write)
		}
		if rerr != nil {
			if rerr != io.EOF {
				err = rerr
			} else if ca.opts.Wire.HangupReasons {
				err = ErrNoHangup
			}
			break
		}
		n++
		if direct {
			continue // copied to its address and answered (readDirect)
		}
		switch hdr.Op {
		case OpCallWrapper:
			ca.h.HandleWrapperCallReleasing(hdr.Tag, payload, hdr.SeqNo, ca.rel)
		case OpResult:
			// TagAddr is not checked, as in the stock executor, unless it
			// is the result's kind.
			res := rt.ResultBytes(payload)
			if ca.opts.Wire.ResultKinds {
				if res, err = resultOfKind(uint64(hdr.Tag), payload); err != nil {
					break loop
				}
			}
			ca.mu.Lock()
			call, ok := ca.pending[hdr.SeqNo]
			delete(ca.pending, hdr.SeqNo)
			ca.mu.Unlock()
			if !ok {
				err = &NoCallError{SeqNo: hdr.SeqNo}
				break loop
			}
			ca.h.HandleControllerCallResult(call, res)
		case OpHangup:
			// Orderly, whatever the payload (22 does not decode it), unless
			// Hangups carry their reason.
			if ca.opts.Wire.HangupReasons {
				err = hangupReason(hdr, payload)
			}
			hungUp = true
			break loop
		case OpSetup:
			err = ErrUnexpectedSetup
			break loop
		default:
			err = ErrUnexpectedOpcode // unreachable: the Reader rejects it
			break loop
		}
	}
	ca.received.Store(n) // before finish, which notifies the Session
	if err != nil && !hungUp && ca.opts.Wire.HangupReasons && ca.opts.HangupTimeout >= 0 {
		ca.hangupWith(err)
	}
	ca.finish(err)
}

// hangupWith tells the controller, if it still reads, why the session
// ends (bounded by Options.HangupTimeout), before the reader finishes.
func (ca *CA) hangupWith(reason error) {
	t := time.AfterFunc(ca.opts.HangupTimeout, ca.closeConn)
	defer t.Stop()
	_ = ca.wr.WriteLast(OpHangup, 0, 0, sps.Marshal(sps.ErrorCodec, reason))
}

// resultOfKind is a Result under dialect.WireProtocol.ResultKinds: kind 0
// a value, kind 1 an out-of-band error whose message is an SPSString
// (llvm-project PRs #223378 and #223916).
func resultOfKind(kind uint64, payload []byte) (rt.WrapperResult, error) {
	switch kind {
	case resultValue:
		return rt.ResultBytes(payload), nil
	case resultOutOfBandError:
		d := sps.NewDecoder(payload)
		msg := d.String()
		if d.Failed() {
			msg = "Malformed result message: could not deserialize out-of-band error"
		}
		return rt.OutOfBandResult(msg), nil
	}
	return rt.WrapperResult{}, &ResultKindError{Kind: kind}
}

// The result kinds of dialect.WireProtocol.ResultKinds.
const (
	resultValue          = 0
	resultOutOfBandError = 1
)

// hangupReason is the end a Hangup carrying an SPSError makes: nil for an
// orderly one, its error, or ErrMalformedHangup.
func hangupReason(hdr Header, payload []byte) error {
	if hdr.SeqNo != 0 || hdr.Tag != 0 {
		return ErrMalformedHangup
	}
	d := sps.NewDecoder(payload)
	if !d.Bool() {
		if d.Failed() {
			return ErrMalformedHangup
		}
		return nil
	}
	msg := d.String()
	if d.Failed() {
		return ErrMalformedHangup
	}
	return &HangupError{Msg: msg}
}

// Received returns how many messages the controller sent; it is final
// once the reader has ended (Done is closed).
func (ca *CA) Received() uint64 { return ca.received.Load() }

// fail starts teardown after a failed write: the first cause wins.
func (ca *CA) fail(err error) {
	ca.mu.Lock()
	if ca.state.Load() == stateConnected {
		ca.state.Store(stateClosing)
		ca.termErr = err
	}
	ca.mu.Unlock()
	ca.closeConn()
}

// finish closes the connection, fails pending controller calls, waits
// for a local Hangup to give up and notifies the Session once, with
// readErr unless teardown already has a cause.
func (ca *CA) finish(readErr error) {
	ca.mu.Lock()
	if ca.state.Load() == stateConnected {
		ca.termErr = readErr
	}
	ca.state.Store(stateClosed)
	pend := ca.pending
	ca.pending = nil
	hangupDone := ca.hangupDone
	h := ca.h
	err := ca.termErr
	ca.mu.Unlock()

	ca.closeConn()
	for _, seq := range slices.Sorted(maps.Keys(pend)) {
		h.FailPendingControllerCall(pend[seq])
	}
	if hangupDone != nil {
		<-hangupDone // prompt: the connection is closed
	}
	h.NotifyDisconnected(err)
	close(ca.done)
}

func (ca *CA) closeConn() {
	ca.closeOnce.Do(func() { _ = ca.conn.Close() })
}

// Disconnect implements rt.ControllerAccess: a local, orderly disconnect,
// idempotent and non-blocking. A goroutine sends Hangup (for at most
// Options.HangupTimeout) and closes the connection; the reader then
// finishes with nil.
func (ca *CA) Disconnect() {
	ca.mu.Lock()
	switch ca.state.Load() {
	case stateIdle:
		ca.state.Store(stateClosed) // never connected: nothing to tear down
		ca.mu.Unlock()
		ca.closeConn()
		close(ca.done)
		return
	case stateConnected:
	default:
		ca.mu.Unlock()
		return
	}
	ca.state.Store(stateClosing)
	ca.termErr = nil
	if ca.opts.HangupTimeout < 0 {
		ca.mu.Unlock()
		ca.closeConn()
		return
	}
	ca.hangupDone = make(chan struct{})
	ca.mu.Unlock()
	go ca.hangup()
}

func (ca *CA) hangup() {
	defer close(ca.hangupDone)
	// Closing the connection also wakes a writer stuck on a full pipe.
	t := time.AfterFunc(ca.opts.HangupTimeout, ca.closeConn)
	_ = ca.wr.WriteLast(OpHangup, 0, 0, hangupPayload)
	t.Stop()
	ca.closeConn()
}

// CallController implements rt.ControllerAccess: the call gets the next
// sequence number and is registered before it is sent
// (docs/protocol.md §1.4, §4.3). A failed send ends the session; the
// drain fails the call.
func (ca *CA) CallController(tag sps.Addr, args []byte, call *rt.PendingCall) {
	ca.mu.Lock()
	if ca.state.Load() != stateConnected {
		ca.mu.Unlock()
		call.Handle().FailControllerCallInline(call) // ca.h may not be set yet
		return
	}
	seq := ca.nextSeq
	ca.nextSeq++
	ca.pending[seq] = call
	ca.mu.Unlock()
	// Between the state check and the write a local Disconnect may have
	// sent Hangup: the sealed writer refuses the call, the drain fails it.
	if err := ca.wr.WriteMsg(OpCallWrapper, seq, tag, args); err != nil && err != ErrWriterSealed {
		ca.fail(err)
	}
}

// SendWrapperResult implements rt.ControllerAccess: a Result with TagAddr
// 0, an out-of-band error as an empty payload (docs/protocol.md §4.2), or
// under Options.Wire.ResultKinds as kind 1 and its message.
// Results after the connection started ending are dropped; a failed send
// ends the session.
func (ca *CA) SendWrapperResult(callID uint64, r rt.WrapperResult) {
	if ca.state.Load() != stateConnected {
		return
	}
	var tag sps.Addr
	payload := r.Bytes()
	if msg, oob := r.OutOfBandError(); oob && ca.opts.Wire.ResultKinds {
		tag, payload = resultOutOfBandError, sps.AppendString(nil, msg)
	}
	if err := ca.wr.WriteMsg(OpResult, callID, tag, payload); err != nil && err != ErrWriterSealed {
		ca.fail(err)
	}
}

// Done returns a channel closed once the session has ended and the
// Session was notified.
func (ca *CA) Done() <-chan struct{} { return ca.done }

// Err returns the terminal error, nil while running and after an orderly
// end; its Error() is what the stock executor prints as "<argv0>: <text>"
// (docs/protocol.md §8.2).
func (ca *CA) Err() error {
	ca.mu.Lock()
	defer ca.mu.Unlock()
	if ca.state.Load() == stateConnected {
		return nil
	}
	return ca.termErr
}

// Wait blocks until Done and returns Err.
func (ca *CA) Wait() error {
	<-ca.done
	return ca.Err()
}

// Pending returns the number of executor->controller calls awaiting
// their result.
func (ca *CA) Pending() int {
	ca.mu.Lock()
	defer ca.mu.Unlock()
	return len(ca.pending)
}
