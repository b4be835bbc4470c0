package wiretest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/sps"
)

// Errors of the controller side. Texts that LLVM 22's SimpleRemoteEPC
// uses for the same condition are quoted verbatim after the prefix.
var (
	// ErrDisconnected completes calls still pending when the executor's
	// output ends (or the Controller closes).
	ErrDisconnected = errors.New("wiretest: disconnected")
	// ErrSetup wraps every failure to receive a valid Setup.
	ErrSetup = errors.New("wiretest: setup")
	// ErrDeserializeResult: a typed call's result bytes did not decode
	// (an out-of-band error arrives as an empty payload in LLVM 22).
	ErrDeserializeResult = errors.New("wiretest: Error deserializing return value from blob in call")
	// ErrAlreadyReplied: a second Reply to the same incoming call.
	ErrAlreadyReplied = errors.New("wiretest: incoming call already answered")
)

// ViolationError is a protocol violation by the executor that LLVM 22's
// controller treats as fatal. Msg is LLVM's text where it has one.
type ViolationError struct {
	Msg    string
	Header simpleremote.Header
}

func (e *ViolationError) Error() string { return "wiretest: executor violated the protocol: " + e.Msg }

// DefaultSetupTimeout bounds how long New waits for the executor's Setup.
const DefaultSetupTimeout = 30 * time.Second

// Options configure a Controller. The zero value gives the defaults.
type Options struct {
	// MaxMessageSize bounds incoming MsgSize (0: the simpleremote
	// default).
	MaxMessageSize uint64
	// SetupTimeout bounds the wait for Setup (0: DefaultSetupTimeout).
	SetupTimeout time.Duration
	// Unhandled answers executor->controller calls to tags without a
	// handler. nil replies with an empty payload, which is what LLVM 22
	// puts on the wire for its "No function registered for tag" error.
	Unhandled Handler
	// Wire is LLVM main's wire when set: a Result's tag is its kind (an
	// out-of-band error fails the call with an *OutOfBandError), an end of
	// input without Hangup is an error, and Finish sends a Hangup
	// carrying success first, as main's SimpleRemoteEPC::disconnect does.
	Wire dialect.WireProtocol
}

// OutOfBandError is a Result of kind 1 under Options.Wire.ResultKinds.
type OutOfBandError struct{ Msg string }

func (e *OutOfBandError) Error() string { return "wiretest: out-of-band error: " + e.Msg }

// ErrNoHangup is LLVM main's controller's verdict on an executor that
// closed its output when neither side had sent a Hangup
// (Options.Wire.HangupReasons).
var ErrNoHangup = errors.New("wiretest: Connection closed without hangup")

// Handler answers an executor->controller call on its own goroutine and
// must eventually Reply, from anywhere; it may call the executor itself.
type Handler func(in *Incoming)

// Incoming is one executor->controller call (JIT dispatch).
type Incoming struct {
	Seq  uint64
	Tag  sps.Addr
	Args []byte // owned by the handler

	c       *Controller
	replied atomic.Bool
}

// Reply sends Result(Seq, TagAddr 0, payload); a second Reply returns
// ErrAlreadyReplied (Controller.SendResult sends duplicates on purpose).
func (in *Incoming) Reply(payload []byte) error {
	if in.replied.Swap(true) {
		return ErrAlreadyReplied
	}
	return in.c.SendResult(in.Seq, payload)
}

// Call is a controller->executor call in flight.
type Call struct {
	Seq uint64
	Fn  sps.Addr

	done   chan struct{}
	result []byte
	err    error
}

// Done is closed when the result (or a failure) is in.
func (c *Call) Done() <-chan struct{} { return c.done }

// Result returns the result payload (nil if empty) or the failure; valid
// after Done.
func (c *Call) Result() ([]byte, error) {
	<-c.done
	return c.result, c.err
}

// Wait waits for the result or ctx's end.
func (c *Call) Wait(ctx context.Context) ([]byte, error) {
	select {
	case <-c.done:
		return c.result, c.err
	case <-ctx.Done():
		return nil, fmt.Errorf("wiretest: waiting for the result of call %d to %#x: %w", c.Seq, uint64(c.Fn), ctx.Err())
	}
}

// Controller is the controller side of one SimpleRemoteEPC connection,
// behaving on the wire as LLVM 22's does (see the package documentation),
// and misbehaving on request. All methods are safe for concurrent use.
type Controller struct {
	conn io.ReadWriteCloser
	rd   *simpleremote.Reader
	wr   *simpleremote.Writer
	opts Options

	setup    sps.SetupInfo
	setupRaw []byte
	syms     map[string]sps.Addr

	mu        sync.Mutex
	nextSeq   uint64
	pending   map[uint64]*Call
	handlers  map[sps.Addr]Handler
	ended     bool
	err       error
	hangup    []byte
	gotHangup bool

	handlersWG sync.WaitGroup
	closing    atomic.Bool
	sentHangup atomic.Bool // the controller's end was announced (Hangup)
	closeOnce  sync.Once
	done       chan struct{}
}

// New takes over conn, waits for the executor's Setup and starts
// serving. On error conn is closed.
func New(conn io.ReadWriteCloser, opts *Options) (*Controller, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.SetupTimeout <= 0 {
		o.SetupTimeout = DefaultSetupTimeout
	}
	c := &Controller{
		conn:     conn,
		rd:       simpleremote.NewReader(conn, o.MaxMessageSize, 0),
		wr:       simpleremote.NewWriter(conn),
		opts:     o,
		pending:  map[uint64]*Call{},
		handlers: map[sps.Addr]Handler{},
		done:     make(chan struct{}),
	}
	type first struct {
		h   simpleremote.Header
		p   []byte
		err error
	}
	ch := make(chan first, 1)
	go func() {
		h, p, err := c.rd.ReadMsg()
		ch <- first{h, p, err}
	}()
	var f first
	select {
	case f = <-ch:
	case <-time.After(o.SetupTimeout):
		_ = conn.Close()
		<-ch
		return nil, fmt.Errorf("%w: no Setup message within %v", ErrSetup, o.SetupTimeout)
	}
	if err := c.checkSetup(f.h, f.p, f.err); err != nil {
		_ = conn.Close()
		return nil, err
	}
	go c.readLoop()
	return c, nil
}

func (c *Controller) checkSetup(h simpleremote.Header, p []byte, err error) error {
	switch {
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%w: executor closed the connection before Setup (llvm-jitlink prints \"disconnecting\")", ErrSetup)
	case err != nil:
		return fmt.Errorf("%w: reading Setup: %w", ErrSetup, err)
	case h.Op != simpleremote.OpSetup:
		return fmt.Errorf("%w: first message is %v, not Setup", ErrSetup, h)
	case h.SeqNo != 0:
		return fmt.Errorf("%w: Setup packet SeqNo not zero", ErrSetup)
	case h.Tag != 0:
		return fmt.Errorf("%w: Setup packet TagAddr not zero", ErrSetup)
	}
	info, derr := sps.Unmarshal(sps.SetupInfoCodec, p)
	if derr != nil {
		return fmt.Errorf("%w: Could not deserialize setup message: %w", ErrSetup, derr)
	}
	c.setup, c.setupRaw = info, p
	c.syms = make(map[string]sps.Addr, len(info.Symbols))
	for _, s := range info.Symbols {
		c.syms[s.Name] = s.Addr
	}
	return nil
}

// Setup returns the decoded Setup payload.
func (c *Controller) Setup() sps.SetupInfo { return c.setup }

// SetupPayload returns the raw Setup payload bytes (do not modify).
func (c *Controller) SetupPayload() []byte { return c.setupRaw }

// Symbol looks up a bootstrap symbol by name.
func (c *Controller) Symbol(name string) (sps.Addr, bool) {
	a, ok := c.syms[name]
	return a, ok
}

// MustSymbol looks up a bootstrap symbol and panics if it is missing.
func (c *Controller) MustSymbol(name string) sps.Addr {
	a, ok := c.syms[name]
	if !ok {
		panic(fmt.Sprintf("wiretest: Symbol %q not found in bootstrap symbols map", name))
	}
	return a
}

// Handle makes h answer executor calls to tag (nil removes it).
func (c *Controller) Handle(tag sps.Addr, h Handler) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h == nil {
		delete(c.handlers, tag)
		return
	}
	c.handlers[tag] = h
}

// HandleFunc makes f answer executor calls to tag synchronously with the
// bytes it returns.
func (c *Controller) HandleFunc(tag sps.Addr, f func(args []byte) []byte) {
	c.Handle(tag, func(in *Incoming) { _ = in.Reply(f(in.Args)) })
}

// Queue delivers executor calls to tag on a channel of capacity n, for
// answering later in any order; calls beyond it get an empty payload.
func (c *Controller) Queue(tag sps.Addr, n int) <-chan *Incoming {
	ch := make(chan *Incoming, n)
	c.Handle(tag, func(in *Incoming) {
		select {
		case ch <- in:
		default:
			_ = in.Reply(nil)
		}
	})
	return ch
}

// Start sends CallWrapper with the next sequence number and returns the
// call in flight; after a failed send the call has failed too.
func (c *Controller) Start(fn sps.Addr, args []byte) (*Call, error) {
	call := &Call{Fn: fn, done: make(chan struct{})}
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		call.err = ErrDisconnected
		close(call.done)
		return call, ErrDisconnected
	}
	call.Seq = c.nextSeq
	c.nextSeq++
	c.pending[call.Seq] = call
	c.mu.Unlock()
	if err := c.wr.WriteMsg(simpleremote.OpCallWrapper, call.Seq, fn, args); err != nil {
		c.mu.Lock()
		_, mine := c.pending[call.Seq]
		delete(c.pending, call.Seq)
		c.mu.Unlock()
		if mine {
			call.err = fmt.Errorf("wiretest: sending call %d: %w", call.Seq, err)
			close(call.done)
		}
		return call, err
	}
	return call, nil
}

// Call calls the executor function at fn with raw argument bytes and
// waits for its raw result (nil when empty).
func (c *Controller) Call(ctx context.Context, fn sps.Addr, args []byte) ([]byte, error) {
	call, err := c.Start(fn, args)
	if err != nil {
		return nil, err
	}
	return call.Wait(ctx)
}

// CallName is Call on a bootstrap symbol.
func (c *Controller) CallName(ctx context.Context, name string, args []byte) ([]byte, error) {
	fn, ok := c.Symbol(name)
	if !ok {
		return nil, fmt.Errorf("wiretest: Symbol %q not found in bootstrap symbols map", name)
	}
	return c.Call(ctx, fn, args)
}

// SendResult sends Result(seq, TagAddr 0, payload), for any seq.
func (c *Controller) SendResult(seq uint64, payload []byte) error {
	return c.wr.WriteMsg(simpleremote.OpResult, seq, 0, payload)
}

// SendFrame sends a well-sized message with any opcode, SeqNo and tag.
func (c *Controller) SendFrame(op simpleremote.Opcode, seq uint64, tag sps.Addr, payload []byte) error {
	return c.wr.WriteMsg(op, seq, tag, payload)
}

// SendRaw writes b as is (malformed frames, partial headers, ...),
// atomically with respect to the Controller's other sends.
func (c *Controller) SendRaw(b []byte) error { return c.wr.WriteRaw(b) }

// Hangup sends Hangup with payload (LLVM 22's controller never does;
// main's does, with an SPSError).
func (c *Controller) Hangup(payload []byte) error {
	c.sentHangup.Store(true)
	return c.wr.WriteMsg(simpleremote.OpHangup, 0, 0, payload)
}

// CloseWrite ends the controller's output without Hangup, as
// llvm-jitlink 22 does; reading continues. Connections without CloseWrite
// are closed entirely.
func (c *Controller) CloseWrite() error {
	if cw, ok := c.conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	var err error
	c.closing.Store(true)
	c.closeOnce.Do(func() { err = c.conn.Close() })
	return err
}

// Finish does CloseWrite (after a Hangup under Options.Wire), waits for
// the executor to close its output and closes the Controller; it returns
// Err, or ctx's error.
func (c *Controller) Finish(ctx context.Context) error {
	if c.opts.Wire.HangupReasons {
		_ = c.Hangup([]byte{0}) // an SPSError holding success
	}
	_ = c.CloseWrite()
	select {
	case <-c.done:
	case <-ctx.Done():
		_ = c.Close()
		return fmt.Errorf("wiretest: executor did not close its output: %w", ctx.Err())
	}
	_ = c.Close()
	return c.Err()
}

// Close closes the connection, fails pending calls with ErrDisconnected
// and waits for the reader and the handler goroutines to end. Idempotent.
func (c *Controller) Close() error {
	var err error
	c.closing.Store(true)
	c.closeOnce.Do(func() { err = c.conn.Close() })
	<-c.done
	c.handlersWG.Wait()
	return err
}

// Done is closed when the executor's output has ended (end-of-file,
// Hangup, a protocol violation or a read error).
func (c *Controller) Done() <-chan struct{} { return c.done }

// Err returns nil while running and after an orderly end, else the
// violation or read error (not one caused by Close).
func (c *Controller) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// HangupPayload reports whether the executor sent Hangup, and its
// payload.
func (c *Controller) HangupPayload() ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hangup, c.gotHangup
}

// Pending returns the number of controller->executor calls in flight.
func (c *Controller) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

func (c *Controller) readLoop() {
	defer close(c.done)
	for {
		h, p, err := c.rd.ReadMsg()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
				if c.opts.Wire.HangupReasons && !c.closing.Load() && !c.sentHangup.Load() {
					err = ErrNoHangup
				}
			}
			c.end(err)
			return
		}
		switch h.Op {
		case simpleremote.OpResult:
			var oob error
			switch {
			case h.Tag == 0:
			case c.opts.Wire.ResultKinds && h.Tag == 1:
				d := sps.NewDecoder(p)
				msg := d.String()
				if d.Failed() {
					msg = "Malformed result message: could not deserialize out-of-band error"
				}
				oob = &OutOfBandError{Msg: msg}
			case c.opts.Wire.ResultKinds:
				c.end(&ViolationError{Msg: fmt.Sprintf("Malformed result message: invalid kind %d", uint64(h.Tag)), Header: h})
				return
			default:
				c.end(&ViolationError{Msg: "Unexpected TagAddr in result message", Header: h})
				return
			}
			c.mu.Lock()
			call, ok := c.pending[h.SeqNo]
			delete(c.pending, h.SeqNo)
			c.mu.Unlock()
			if !ok {
				c.end(&ViolationError{Msg: (&simpleremote.NoCallError{SeqNo: h.SeqNo}).Error(), Header: h})
				return
			}
			call.result, call.err = p, oob
			close(call.done)
		case simpleremote.OpCallWrapper:
			in := &Incoming{Seq: h.SeqNo, Tag: h.Tag, Args: p, c: c}
			c.mu.Lock()
			hd := c.handlers[h.Tag]
			c.mu.Unlock()
			if hd == nil {
				hd = c.opts.Unhandled
			}
			if hd == nil {
				hd = func(in *Incoming) { _ = in.Reply(nil) }
			}
			c.handlersWG.Add(1)
			go func() {
				defer c.handlersWG.Done()
				hd(in)
			}()
		case simpleremote.OpHangup:
			c.mu.Lock()
			c.hangup, c.gotHangup = p, true
			c.mu.Unlock()
			c.end(nil)
			return
		case simpleremote.OpSetup:
			c.end(&ViolationError{Msg: "second Setup message", Header: h})
			return
		}
	}
}

// end records the reader's verdict and fails the pending calls.
func (c *Controller) end(err error) {
	var ioe *simpleremote.IOError
	c.mu.Lock()
	c.ended = true
	// A read error caused by our own Close is not the executor's fault.
	if err != nil && !(c.closing.Load() && errors.As(err, &ioe)) {
		c.err = err
	}
	pend := c.pending
	c.pending = map[uint64]*Call{}
	c.mu.Unlock()
	for _, seq := range slices.Sorted(maps.Keys(pend)) {
		call := pend[seq]
		call.err = ErrDisconnected
		close(call.done)
	}
}
