package alloc

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/sps"
)

// ActionError is a failed allocation action. Error returns Msg exactly:
// the callee's out-of-band message, the message of the SPSError it
// returned, or MsgDeserializeActionResult — the text LLVM 22 reports,
// which is forwarded to the controller unchanged. Failures that are ours
// (a denied keepalive, a panicking Go wrapper) carry an "alloc: " prefix.
type ActionError struct {
	Fn  sps.Addr // the action's function address
	Msg string
	Err error // the cause (*rt.OutOfBandError, *rt.OutOfBandError, *sps.RemoteError, *sps.DecodeError, ...), may be nil
}

func (e *ActionError) Error() string { return e.Msg }

func (e *ActionError) Unwrap() error { return e.Err }

// Runner runs allocation actions (docs/protocol.md §6.3): each call is
//
//	CWrapperFunctionBuffer fn(const char *ArgData, size_t ArgSize)
//
// returning an SPSError. An action whose address is a Go wrapper function
// registered on Session (the executor registers the EH-frame and
// JITLoaderGDB actions that way) runs in Go, synchronously; every other
// address is called natively through native, in one Go→C transition.
//
// Every method runs the actions synchronously on the calling goroutine,
// locked to its OS thread for the whole run (a Go wrapper returning later
// is waited for), under one keepalive token of Session; if the token is
// denied, nothing runs and every action fails naming the denial.
//
// The zero Runner (no Session) calls everything natively and takes no
// token. Runner is a small value, safe for concurrent use. Argument bytes
// are only read during the call (a Go wrapper that owns its arguments
// receives a copy it may keep; one registered with rt.BorrowArgs receives
// a view it must not modify).
type Runner struct {
	// Session resolves Go wrapper addresses and supplies keepalive tokens.
	Session *rt.Session
	// NoKeepalive runs without a keepalive token. It is only for a
	// Service's OnShutdown hook, where the keepalive group is closed by
	// definition and no Session-managed code can be running any more.
	NoKeepalive bool
}

// Run runs one action and returns its failure as an *ActionError, or nil.
// A null action (Fn == 0) succeeds without running.
func (r Runner) Run(c sps.WrapperCall) error {
	if c.Fn == 0 {
		return nil
	}
	o, err := startOp(r.keepalive())
	if err != nil {
		return notRun(c.Fn, err)
	}
	defer o.end()
	b := getBuf()
	defer putBuf(b)
	return runOne(r.Session, c, b)
}

// RunFinalizeActions runs the finalize halves of pairs in order, with
// upstream's semantics (orc-rt AllocActionTest, LLVM's
// runFinalizeActions): a null finalize is skipped; the dealloc half of each
// pair is collected (also when its finalize was null, never when it was
// null itself) after its finalize succeeded. When a finalize fails, the
// deallocs collected so far run in reverse order — each of their failures
// goes to report (which may be nil), and cleanup continues past them —
// and the finalize's error is returned; the failing pair's dealloc and
// all later pairs are not touched. On success it returns the dealloc
// actions in finalize order (meant to run in reverse); their Args alias
// the pairs' Args.
func (r Runner) RunFinalizeActions(pairs []sps.ActionPair, report func(error)) ([]sps.WrapperCall, error) {
	o, err := startOp(r.keepalive())
	if err != nil {
		for _, p := range pairs {
			if p.Finalize.Fn != 0 {
				return nil, notRun(p.Finalize.Fn, err)
			}
		}
		return nil, fmt.Errorf("alloc: allocation actions not run: %w", err)
	}
	defer o.end()
	b := getBuf()
	defer putBuf(b)
	deallocs, cleanup, ferr := runFinalize(r.Session, b, pairs, nil, nil)
	if report != nil {
		for _, e := range cleanup {
			report(e)
		}
	}
	if ferr != nil {
		return nil, ferr
	}
	return deallocs, nil
}

// RunDeallocActions runs calls from the last to the first, always to the
// end: each failure is passed to report (which may be nil) as it happens,
// so failures arrive in reverse list order. It returns all failures
// joined in that order (errors.Join, messages separated by "\n"), or nil.
// Null calls are skipped.
func (r Runner) RunDeallocActions(calls []sps.WrapperCall, report func(error)) error {
	var errs []error
	o, err := startOp(r.keepalive())
	if err != nil {
		for i := len(calls) - 1; i >= 0; i-- {
			if calls[i].Fn != 0 {
				errs = append(errs, notRun(calls[i].Fn, err))
			}
		}
	} else {
		b := getBuf()
		errs = runDealloc(r.Session, b, calls, nil)
		putBuf(b)
		o.end()
	}
	if report != nil {
		for _, e := range errs {
			report(e)
		}
	}
	return errors.Join(errs...)
}

// keepalive is the Session whose keepalive the Runner's ops take: none
// without a Session or with NoKeepalive.
func (r Runner) keepalive() *rt.Session {
	if r.NoKeepalive {
		return nil
	}
	return r.Session
}

func notRun(fn sps.Addr, err error) error {
	return &ActionError{Fn: fn, Msg: fmt.Sprintf("alloc: action %#x not run: %v", uint64(fn), err), Err: err}
}

// The run loops below run inside an op.

// runFinalize runs pairs' finalize actions in order and appends the
// dealloc halves to dst. On a failure it runs the collected deallocs in
// reverse, appending their failures to errs, and returns the finalize
// error last.
func runFinalize(s *rt.Session, b *resultBuf, pairs []sps.ActionPair, dst []sps.WrapperCall, errs []error) (deallocs []sps.WrapperCall, cleanupErrs []error, ferr error) {
	start := len(dst)
	for i := range pairs {
		p := &pairs[i]
		if p.Finalize.Fn != 0 {
			if err := runOne(s, p.Finalize, b); err != nil {
				errs = runDealloc(s, b, dst[start:], errs)
				return dst[:start], errs, err
			}
		}
		if p.Dealloc.Fn != 0 {
			dst = append(dst, p.Dealloc)
		}
	}
	return dst, errs, nil
}

// runDealloc runs calls last to first, appending every failure to errs.
func runDealloc(s *rt.Session, b *resultBuf, calls []sps.WrapperCall, errs []error) []error {
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].Fn == 0 {
			continue
		}
		if err := runOne(s, calls[i], b); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// resultBuf is a reusable native result buffer: CallWrapper copies results
// that fit in its spare capacity without allocating.
type resultBuf struct{ b []byte }

const resultBufCap = 512

var bufPool = sync.Pool{New: func() any { return &resultBuf{b: make([]byte, 0, resultBufCap)} }}

func getBuf() *resultBuf { return bufPool.Get().(*resultBuf) }

func putBuf(b *resultBuf) {
	if cap(b.b) > 64<<10 { // do not keep a huge error message's buffer
		b.b = make([]byte, 0, resultBufCap)
	}
	bufPool.Put(b)
}

// runOne runs one non-null action.
func runOne(s *rt.Session, c sps.WrapperCall, b *resultBuf) error {
	if s != nil {
		if fn, borrows, ok := s.WrapperAt(c.Fn); ok {
			return runGo(s, fn, borrows, c)
		}
	}
	res, err := callNative(c.Fn, c.Args, b.b[:0])
	if cap(res) > cap(b.b) {
		b.b = res[:0]
	}
	if err != nil {
		if msg, ok := oobMessage(err); ok {
			return &ActionError{Fn: c.Fn, Msg: msg, Err: err}
		}
		if notCode(err) {
			return &ActionError{Fn: c.Fn, Msg: "alloc: action not run: " + err.Error(), Err: err}
		}
		return &ActionError{Fn: c.Fn, Msg: fmt.Sprintf("alloc: action %#x: %v", uint64(c.Fn), err), Err: err}
	}
	return decodeActionResult(s, c.Fn, res)
}

// decodeActionResult decodes an action's result bytes as an SPSError;
// under orc-rt's allocation actions (LLVM main) an empty result is
// success too. Trailing bytes are ignored, as LLVM ignores them. (Decoded
// by hand: going through the sps.ErrorCodec interface would move the
// Decoder to the heap.)
func decodeActionResult(s *rt.Session, fn sps.Addr, res []byte) error {
	if len(res) > 0 && res[0] == 0 {
		return nil
	}
	if len(res) == 0 && s != nil && s.Dialect().OrcRTAllocActions {
		return nil
	}
	d := sps.NewDecoder(res)
	if d.Bool() {
		if msg := d.String(); !d.Failed() {
			return &ActionError{Fn: fn, Msg: msg, Err: &sps.RemoteError{Msg: msg}}
		}
	}
	return &ActionError{Fn: fn, Msg: MsgDeserializeActionResult, Err: d.Err()}
}

// runGo runs a Go wrapper function as an action and waits for its result,
// which it may deliver later and from another goroutine. c.Args may be a
// view into a borrowed argument buffer (initialize's, which its CA
// recycles; see rt.BorrowArgs): a wrapper that owns its arguments gets a
// copy.
func runGo(s *rt.Session, fn rt.WrapperFunc, borrows bool, c sps.WrapperCall) (err error) {
	args := c.Args[:len(c.Args):len(c.Args)]
	if !borrows {
		args = bytes.Clone(args)
	}
	done := make(chan rt.WrapperResult, 1)
	var returned atomic.Bool
	ret := func(r rt.WrapperResult) {
		if returned.Swap(true) {
			panic("alloc: allocation action returned its result twice")
		}
		done <- r
	}
	panicked := func() (p any) {
		defer func() { p = recover() }()
		fn(s, args, ret)
		return nil
	}()
	if panicked != nil && !returned.Load() {
		return &ActionError{Fn: c.Fn, Msg: fmt.Sprintf("alloc: action %#x panicked: %v", uint64(c.Fn), panicked)}
	}
	r := <-done
	if msg, ok := r.OutOfBandError(); ok {
		return &ActionError{Fn: c.Fn, Msg: msg, Err: r.Err()}
	}
	return decodeActionResult(s, c.Fn, r.Bytes())
}
