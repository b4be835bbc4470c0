//go:build linux && cgo

package jit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/sps"
)

// controller is one controller process and the executor session it
// drives in this process.
type controller struct {
	ex      *executor.Executor
	cmd     *exec.Cmd
	stderr  *tail
	version string // LLVM's, as the controller announced it

	exited   chan struct{} // closed once cmd has been waited for
	exitErr  *ControllerExitError
	served   chan struct{} // closed once Serve returned
	serveErr error
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
	conn := simpleremote.NewFileConn(fromCtl, toCtlW)
	c := &controller{stderr: newTail(a.opts.Stderr), exited: make(chan struct{}), served: make(chan struct{})}
	ready := make(chan readiness, 1)
	c.ex, err = newExecutor(a.opts, ready)
	if err != nil {
		theirs()
		conn.Close()
		return nil, err
	}
	args := []string{"3", "4"}
	if a.runtime != "" {
		args = append([]string{"-orc-runtime=" + a.runtime}, args...)
	}
	c.cmd = exec.Command(a.path, args...)
	c.cmd.ExtraFiles = []*os.File{toCtl, fromCtlW}
	c.cmd.Stdout, c.cmd.Stderr = c.stderr, c.stderr
	err = c.cmd.Start()
	theirs()
	if err != nil {
		conn.Close()
		c.ex.Close()
		return nil, fmt.Errorf("jit: starting the controller: %w; %s", err, installController)
	}
	go c.wait()
	go c.serve(conn)
	select {
	case r := <-ready:
		if r.err == nil {
			c.version = r.version
			return c, nil
		}
		err = fmt.Errorf("jit: the controller %s is not this version's: %w; rebuild it (make jit-controller)", a.path, r.err)
	case <-c.exited:
		err = c.exitErr
	case <-c.served:
		// It closed its end: usually it is exiting, and how it exited
		// says why.
		select {
		case <-c.exited:
			err = c.exitErr
		case <-time.After(time.Second):
			err = fmt.Errorf("jit: the controller ended the session before it was ready: %v", c.serveErr)
		}
	case <-ctx.Done():
		err = fmt.Errorf("jit: starting the controller: %w", ctx.Err())
	}
	c.kill()
	return nil, err
}

// readiness is what the controller's ready call says.
type readiness struct {
	version string // LLVM's
	err     error  // not nil: a controller of other sources
}

// newExecutor builds the executor a controller drives: LLVM 22's
// dialect, the tags and the ready wrapper in Setup, and code that stays
// callable when the controller goes away.
func newExecutor(opts *Options, ready chan<- readiness) (*executor.Executor, error) {
	ex, err := executor.New(executor.Options{
		Logger:      opts.Logger,
		Dialect:     dialect.LLVM22,
		HostSymbols: opts.HostSymbols,
		EndOfInput:  executor.EndDetach,
		TraceWire:   opts.TraceWire,
	})
	if err != nil {
		return nil, fmt.Errorf("jit: %w", err)
	}
	var once sync.Once
	announce := func(_ *rt.Session, args []byte, ret rt.ReturnFunc) {
		version, protocol, err := readySig.DecodeArgs(args)
		if err == nil && protocol != controllerProtocol {
			err = fmt.Errorf("it speaks version %d of the requests, this package %d", protocol, controllerProtocol)
		}
		once.Do(func() { ready <- readiness{version, err} })
		ret(rt.ResultBytes(readySig.AppendResult(nil, struct{}{})))
	}
	syms := ex.Symbols()
	err = syms.Add(readySymbol, ex.Session().RegisterWrapper(announce))
	for tag, name := range tagNames {
		err = errors.Join(err, syms.Add(name, tagAddr(tag)))
	}
	if err != nil {
		ex.Close()
		return nil, fmt.Errorf("jit: %w", err)
	}
	return ex, nil
}

func (c *controller) serve(conn simpleremote.Conn) {
	c.serveErr = c.ex.Serve(context.Background(), conn)
	close(c.served)
}

func (c *controller) wait() {
	err := c.cmd.Wait()
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
// or ctx, whichever comes first. An answer that comes after ctx ended
// goes to late, if set.
func (c *controller) call(ctx context.Context, tag int, args []byte, late func([]byte)) ([]byte, error) {
	if !c.alive() {
		return nil, c.gone()
	}
	done := make(chan rt.WrapperResult, 1)
	c.ex.Session().CallController(tagAddr(tag), args, func(r rt.WrapperResult) { done <- r })
	select {
	case r := <-done:
		if err := r.Err(); err != nil {
			if !c.alive() || c.sessionEnded() {
				return nil, c.gone()
			}
			return nil, fmt.Errorf("jit: %s: %w", tagNames[tag], err)
		}
		return r.Bytes(), nil
	case <-c.exited:
		return nil, c.exitErr
	case <-ctx.Done():
		if late != nil {
			go func() {
				if r := <-done; r.Err() == nil {
					late(r.Bytes())
				}
			}()
		}
		return nil, fmt.Errorf("jit: %s: %w", tagNames[tag], ctx.Err())
	}
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

// close asks the controller to remove everything and exit, then waits for
// it; a controller that does not is killed. It closes the executor.
func (c *controller) close() error {
	var err error
	if c.alive() {
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		var res []byte
		if res, err = c.call(ctx, tagClose, closeSig.AppendArgs(nil), nil); err == nil {
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
