//go:build linux && cgo

package jit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/sps"
)

// controller is one controller process and the executor session it
// drives in this process.
type controller struct {
	ex      *executor.Executor
	tags    [numTags]executor.ControllerFunc // the requests, by tag
	cmd     *exec.Cmd
	stderr  *tail
	version string // LLVM's, as the controller announced it
	target  string // what it compiles for, as it announced it

	exited   chan struct{} // closed once cmd has been waited for
	output   chan struct{} // closed once its output has ended
	exitErr  *ControllerExitError
	served   chan struct{} // closed once Serve returned
	serveErr error

	tickets atomic.Uint64 // the last ticket of a compile
}

// startArgs is what a controller is started with.
type startArgs struct {
	path, runtime string
	opts          *Options
}

// startController starts the controller program on two pipes, as
// llvm-jitlink starts an executor, and serves it with an executor on the
// other ends until it announces itself ready (or exits, or ctx ends).
// Pipes, not a socketpair: LLVM's transport ends a session by closing its
// descriptors, which a socket read blocked in another thread outlives.
func startController(ctx context.Context, a startArgs) (*controller, error) {
	toCtl, toCtlW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("jit: pipe: %w", err)
	}
	fromCtl, fromCtlW, err := os.Pipe()
	if err != nil {
		toCtl.Close()
		toCtlW.Close()
		return nil, fmt.Errorf("jit: pipe: %w", err)
	}
	// The controller's ends: closed here once it has them, so that its
	// exit is end of input here.
	theirs := func() {
		toCtl.Close()
		fromCtlW.Close()
	}
	ours := func() {
		fromCtl.Close()
		toCtlW.Close()
	}
	c := &controller{stderr: newTail(a.opts.Stderr), exited: make(chan struct{}), served: make(chan struct{})}
	ready := make(chan readiness, 1)
	c.ex, err = newExecutor(a.opts, ready)
	if err != nil {
		theirs()
		ours()
		return nil, err
	}
	for tag, name := range tagNames {
		c.tags[tag], _ = c.ex.ControllerFunc(name)
	}
	args := []string{"3", "4"}
	if a.runtime != "" {
		args = append([]string{"-orc-runtime=" + a.runtime}, args...)
	}
	// Its output through a pipe of our own, not os/exec's: Wait would
	// wait for every holder of the write end, the controller's compile
	// workers too, and so would Done.
	outR, outW, err := os.Pipe()
	if err != nil {
		theirs()
		ours()
		c.ex.Close()
		return nil, fmt.Errorf("jit: pipe: %w", err)
	}
	c.cmd = exec.Command(a.path, args...)
	c.cmd.ExtraFiles = []*os.File{toCtl, fromCtlW}
	c.cmd.Stdout, c.cmd.Stderr = outW, outW
	err = c.cmd.Start()
	theirs()
	outW.Close()
	if err != nil {
		outR.Close()
		ours()
		c.ex.Close()
		return nil, fmt.Errorf("jit: starting the controller: %w; %s", err, installController)
	}
	c.output = make(chan struct{})
	go func() {
		_, _ = io.Copy(c.stderr, outR)
		outR.Close()
		close(c.output)
	}()
	go c.wait()
	go c.serve(fromCtl, toCtlW)
	select {
	case r := <-ready:
		if r.err == nil {
			c.version, c.target = r.version, r.target
			return c, nil
		}
		err = fmt.Errorf("jit: the controller %s is not this version's: %w; rebuild it (make jit-controller)", a.path, r.err)
	case <-c.exited:
		err = notStarted(a.path, c.exitErr)
	case <-c.served:
		// It closed its end: usually it is exiting, and how it exited
		// says why.
		select {
		case <-c.exited:
			err = notStarted(a.path, c.exitErr)
		case <-time.After(time.Second):
			err = fmt.Errorf("jit: the controller ended the session before it was ready: %v", c.serveErr)
		}
	case <-ctx.Done():
		err = fmt.Errorf("jit: starting the controller: %w", ctx.Err())
	}
	c.kill()
	return nil, err
}

// notStarted is the error of a controller program that exited before it
// was ready: often not orcrt-jit-controller at all.
func notStarted(path string, exit *ControllerExitError) error {
	return fmt.Errorf("jit: %s exited before it was ready (is it orcrt-jit-controller?): %w", path, exit)
}

// readiness is what the controller's ready call says.
type readiness struct {
	version string // LLVM's
	target  string // triple, CPU and features it compiles for
	err     error  // not nil: a controller of other sources
}

// newExecutor builds the executor a controller drives: LLVM 22's
// dialect, the tags and the ready wrapper in Setup, and code that stays
// callable when the controller goes away.
func newExecutor(opts *Options, ready chan<- readiness) (*executor.Executor, error) {
	var once sync.Once
	announce := func(args []byte) ([]byte, error) {
		version, protocol, target, err := readySig.DecodeArgs(args)
		if err == nil && protocol != controllerProtocol {
			err = fmt.Errorf("it speaks version %d of the requests, this package %d", protocol, controllerProtocol)
		}
		once.Do(func() { ready <- readiness{version, target, err} })
		return readySig.AppendResult(nil, struct{}{}), nil
	}
	ex, err := executor.New(executor.Options{
		Logger:          opts.Logger,
		Release:         22,
		HostSymbols:     opts.HostSymbols,
		EndOfInput:      executor.EndDetach,
		TraceWire:       opts.TraceWire,
		ControllerCalls: tagNames[:],
		Wrappers:        []executor.Wrapper{{Name: readySymbol, Fn: announce}},
	})
	if err != nil {
		return nil, fmt.Errorf("jit: %w", err)
	}
	return ex, nil
}

func (c *controller) serve(in, out *os.File) {
	c.serveErr = c.ex.ServeFiles(context.Background(), in, out)
	close(c.served)
}

func (c *controller) wait() {
	err := c.cmd.Wait()
	// What it wrote before it died is in the pipe; a compile worker may
	// hold the pipe open a little longer.
	select {
	case <-c.output:
	case <-time.After(outputGrace):
	}
	state := "exit status 0"
	if err != nil {
		state = err.Error()
	}
	c.exitErr = &ControllerExitError{State: state, Stderr: c.stderr.String()}
	close(c.exited)
}

// alive reports whether the controller process is still running.
func (c *controller) alive() bool {
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

// gone is the error of a request the controller can no longer answer.
func (c *controller) gone() error {
	<-c.exited
	return c.exitErr
}

// call sends a request and waits for its answer, the controller's exit
// or ctx, whichever comes first.
func (c *controller) call(ctx context.Context, tag int, args []byte) ([]byte, error) {
	return callAs(ctx, c, tag, args, func(res []byte) ([]byte, error) { return res, nil }, nil, nil)
}

// cancel asks the controller to stop the compile of ticket; it answers
// nothing worth waiting for.
func (c *controller) cancel(ticket uint64) {
	c.tags[tagCancel].CallInline(cancelSig.AppendArgs(nil, ticket), func(executor.WrapperResult) {})
}

// answer is a request's decoded answer.
type answer[T any] struct {
	v      T
	err    error
	failed bool // err is the session's: the call did not complete
}

// Who takes an answer: the caller, or late once the caller has gone.
const (
	waiting int32 = iota
	delivered
	abandoned
)

// callAs is call with the answer decoded by decode on the connection's
// reader as it arrives, before any later message is read: an add's held
// back initialize calls run there, in the controller's order. An answer
// decoded after ctx ended goes to late, if set, on a goroutine of its
// own; when ctx ends first, cancel, if set, runs.
func callAs[T any](ctx context.Context, c *controller, tag int, args []byte, decode func([]byte) (T, error), late func(T), cancel func()) (T, error) {
	var zero T
	if !c.alive() {
		return zero, c.gone()
	}
	var state atomic.Int32
	done := make(chan answer[T], 1)
	c.tags[tag].CallInline(args, func(r executor.WrapperResult) {
		var a answer[T]
		if a.err = r.Err(); a.err == nil {
			a.v, a.err = decode(r.Bytes())
		} else {
			a.failed = true
		}
		if state.CompareAndSwap(waiting, delivered) {
			done <- a
		} else if late != nil && a.err == nil {
			go late(a.v)
		}
	})
	select {
	case a := <-done:
		return answered(c, tag, a)
	case <-c.exited:
		if state.CompareAndSwap(waiting, abandoned) {
			return zero, c.exitErr
		}
	case <-ctx.Done():
		if state.CompareAndSwap(waiting, abandoned) {
			if cancel != nil {
				cancel()
			}
			return zero, fmt.Errorf("jit: %s: %w", tagNames[tag], ctx.Err())
		}
	}
	return answered(c, tag, <-done) // it was answered meanwhile
}

func answered[T any](c *controller, tag int, a answer[T]) (T, error) {
	if a.failed {
		return a.v, c.failed(tag, a.err)
	}
	return a.v, a.err
}

// failed is the error of a request the session could not complete.
func (c *controller) failed(tag int, err error) error {
	if !c.alive() || c.sessionEnded() {
		return c.gone()
	}
	return fmt.Errorf("jit: %s: %w", tagNames[tag], err)
}

// runDeferred runs the executor calls the controller held back from an
// add's links, in its order, as if it had made them: each must answer
// its key.
func (c *controller) runDeferred(calls []deferredCall) error {
	for _, dc := range calls {
		r, ok := c.ex.RunWrapper(dc.First, dc.Second)
		if !ok {
			return fmt.Errorf("jit: the controller held back a call of %#x, which is no wrapper function", uint64(dc.First))
		}
		if err := r.Err(); err != nil {
			return fmt.Errorf("jit: initializing JIT'd memory: %w", err)
		}
		key, err := sps.Unmarshal(initializeResult, r.Bytes())
		if err == nil {
			err = key.Err
		}
		if err == nil && key.Value != dc.Third {
			err = fmt.Errorf("initialized as %#x, where the controller expects %#x", uint64(key.Value), uint64(dc.Third))
		}
		if err != nil {
			return fmt.Errorf("jit: initializing JIT'd memory: %w", err)
		}
	}
	return nil
}

// sessionEnded reports whether Serve has returned: the controller closed
// its end, so it is exiting.
func (c *controller) sessionEnded() bool {
	select {
	case <-c.served:
		return true
	default:
		return false
	}
}

// closeTimeout bounds an orderly close: the controller removes every
// module (waiting for Go calls in flight) and hangs up.
const closeTimeout = 30 * time.Second

// outputGrace bounds the wait, once the controller has exited, for the
// end of its output, which the controller's compile workers hold until
// they notice and exit; what it wrote is read well within it.
const outputGrace = 20 * time.Millisecond

// close asks the controller to remove everything and exit, then waits for
// it; a controller that does not is killed. It closes the executor.
func (c *controller) close() error {
	var err error
	if c.alive() {
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		var res []byte
		if res, err = c.call(ctx, tagClose, closeSig.AppendArgs(nil)); err == nil {
			if e, derr := closeSig.DecodeResult(res); derr != nil || e != nil {
				err = fmt.Errorf("jit: closing the controller: %w", errors.Join(derr, e))
			}
		}
		select {
		case <-c.exited:
		case <-ctx.Done():
			err = errors.Join(err, errors.New("jit: the controller did not exit: killed"))
		}
		if errors.Is(err, ErrControllerGone) {
			err = nil // it closed its end first: that is the goal
		}
	}
	c.kill()
	return err
}

// kill ends the controller process if it runs, and the executor once the
// session has ended.
func (c *controller) kill() {
	if c.alive() {
		_ = c.cmd.Process.Kill()
	}
	<-c.exited
	<-c.served
	c.ex.Close()
}

// addrs decodes a lookup's answer.
func decodeAddrs(res []byte) ([]sps.Addr, error) {
	e, err := lookupSig.DecodeResult(res)
	if err != nil {
		return nil, fmt.Errorf("jit: the controller's lookup answer: %w", err)
	}
	return e.Value, e.Err
}
