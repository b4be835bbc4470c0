//go:build cgo

package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"unsafe"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/sps"
)

// A host that runs its own controller program (package jit) talks to it
// through named calls both ways, published as bootstrap symbols in Setup:
// Options.ControllerCalls and Options.Wrappers.

// WrapperResult is a wrapper function's result: bytes, empty, or an
// out-of-band error (Err).
type WrapperResult = rt.WrapperResult

// Wrapper is a Go function the controller calls by name: Fn gets the
// call's arguments (its own) and returns the result's bytes, or an error
// the controller receives as an out-of-band error. It runs as every
// incoming call does (Options.Dispatcher).
type Wrapper struct {
	Name string
	Fn   func(args []byte) ([]byte, error)
}

// ControllerFunc is a function of the controller the host calls by name
// ([Executor.ControllerFunc]). The zero value is not usable.
type ControllerFunc struct {
	s   *rt.Session
	tag sps.Addr
}

// Call sends args (owned by the session from now on) and calls done
// exactly once with the answer: later on a goroutine of the Dispatcher,
// or at once with an out-of-band error when no controller is attached.
func (c ControllerFunc) Call(args []byte, done func(WrapperResult)) {
	c.s.CallController(c.tag, args, done)
}

// CallInline is Call with done run on the connection's reader as the
// answer arrives, before any later message is read: one goroutine
// hand-off fewer. done must not block, nor wait for anything the
// connection has yet to deliver.
func (c ControllerFunc) CallInline(args []byte, done func(WrapperResult)) {
	c.s.CallControllerInline(c.tag, args, done)
}

// ControllerFunc returns the controller call published under name
// (Options.ControllerCalls).
func (e *Executor) ControllerFunc(name string) (ControllerFunc, bool) {
	tag, ok := e.ctlTags[name]
	return ControllerFunc{s: e.s, tag: tag}, ok
}

// installPort publishes the controller calls, each at an address of its
// own that the controller only uses as a key, and the wrappers.
func (e *Executor) installPort() error {
	tags := make([]byte, len(e.opts.ControllerCalls))
	e.ctlTags = make(map[string]sps.Addr, len(tags))
	var err error
	for i, name := range e.opts.ControllerCalls {
		tag := sps.Addr(uintptr(unsafe.Pointer(&tags[i])))
		e.ctlTags[name] = tag
		err = errors.Join(err, e.syms.Add(name, tag))
	}
	e.tagBytes = tags
	for _, w := range e.opts.Wrappers {
		fn := w.Fn
		addr := e.s.RegisterWrapper(func(_ *rt.Session, args []byte, ret rt.ReturnFunc) {
			res, err := fn(args)
			if err != nil {
				ret(rt.OutOfBandResult(err.Error()))
				return
			}
			ret(rt.ResultBytes(res))
		})
		err = errors.Join(err, e.syms.Add(w.Name, addr))
	}
	if err != nil {
		return fmt.Errorf("executor: %w", err)
	}
	return nil
}

// RunWrapper runs the wrapper function registered at addr (a service's,
// which the controller named) with args on this goroutine, and returns
// its result once delivered; ok is false if no wrapper is registered
// there.
func (e *Executor) RunWrapper(addr sps.Addr, args []byte) (r WrapperResult, ok bool) {
	fn, _, ok := e.s.WrapperAt(addr)
	if !ok {
		return r, false
	}
	got := make(chan rt.WrapperResult, 1)
	fn(e.s, args, func(r rt.WrapperResult) { got <- r })
	return <-got, true
}

// ServeFiles is Serve over a pair of pipes (or other files): the
// controller writes to in and reads from out, as llvm-jitlink's
// executor's filedescs=IN,OUT. Reads poll briefly before they sleep
// (simpleremote.ExecutorReadSpin). The executor owns in and out.
func (e *Executor) ServeFiles(ctx context.Context, in, out *os.File) error {
	conn := simpleremote.NewFileConn(in, out)
	conn.SetReadSpin(simpleremote.ExecutorReadSpin)
	return e.Serve(ctx, conn)
}

// dialectOf is the dialect opts choose (nil: Dialect's default).
func dialectOf(opts Options) (*dialect.Dialect, error) {
	if opts.Dialect != nil || opts.Release == 0 {
		return opts.Dialect, nil
	}
	d, err := dialect.ForRelease(opts.Release)
	if err != nil {
		return nil, fmt.Errorf("executor: %w", err)
	}
	return d, nil
}
