//go:build cgo

package executor_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/sps"
)

const (
	testDrain = 200 * time.Millisecond
	// endMargin is what ending may take beyond the drain timeout on a
	// loaded machine.
	endMargin = 3 * time.Second
)

// blockingWrapper registers a wrapper function that blocks until release
// is closed; blocked is closed when it has been called.
func blockingWrapper(ex *executor.Executor) (addr sps.Addr, blocked, release chan struct{}) {
	blocked, release = make(chan struct{}), make(chan struct{})
	addr = ex.Session().RegisterWrapper(func(_ *rt.Session, _ []byte, ret rt.ReturnFunc) {
		close(blocked)
		<-release
		ret(rt.ResultBytes(nil))
	})
	return addr, blocked, release
}

// TestServeCancelledWhileCallBlocked: cancelling Serve's ctx while a call
// never returns ends Serve DrainTimeout later with a *DrainTimeoutError
// naming the ctx's cause — also when the Hangup cannot be written (a
// controller that no longer reads): the drain clock starts when ctx is
// done, not when the connection has closed, which would be the wire's
// HangupTimeout (here a minute) later.
func TestServeCancelledWhileCallBlocked(t *testing.T) {
	for _, tc := range []struct {
		name string
		// call connects a controller and makes it call fn; the returned
		// function ends the controller.
		call func(t *testing.T, ctlEnd io.ReadWriteCloser, fn sps.Addr) func()
		tr   wiretest.Transport
	}{
		{"hangup-sent", func(t *testing.T, ctlEnd io.ReadWriteCloser, fn sps.Addr) func() {
			ctl, err := wiretest.New(ctlEnd, nil)
			require.NoError(t, err)
			_, err = ctl.Start(fn, nil)
			require.NoError(t, err)
			return func() { _ = ctl.Close() }
		}, wiretest.Pipe},
		{"hangup-stuck", func(t *testing.T, ctlEnd io.ReadWriteCloser, fn sps.Addr) func() {
			// Read Setup, send one call, then read nothing more: over
			// net.Pipe (unbuffered) the Hangup cannot be written.
			hdr := make([]byte, simpleremote.HeaderSize)
			_, err := io.ReadFull(ctlEnd, hdr)
			require.NoError(t, err)
			_, err = io.ReadFull(ctlEnd, make([]byte, simpleremote.ParseHeader(hdr).PayloadLen()))
			require.NoError(t, err)
			_, err = ctlEnd.Write(simpleremote.AppendFrame(nil, simpleremote.OpCallWrapper, 1, fn, nil))
			require.NoError(t, err)
			return func() { _ = ctlEnd.Close() }
		}, wiretest.Mem},
	} {
		t.Run(tc.name, func(t *testing.T) {
			execEnd, ctlEnd, err := wiretest.Connect(tc.tr)
			require.NoError(t, err)
			ex, err := executor.New(executor.Options{DrainTimeout: testDrain, Wire: &simpleremote.Options{HangupTimeout: time.Minute}})
			require.NoError(t, err)
			fn, blocked, release := blockingWrapper(ex)
			c, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			errc := make(chan error, 1)
			go func() { errc <- ex.Serve(c, execEnd) }()
			endCtl := tc.call(t, ctlEnd, fn)
			<-blocked

			why := errors.New("test: SIGTERM")
			start := time.Now()
			cancel(why)
			var err2 error
			select {
			case err2 = <-errc:
			case <-time.After(testDrain + endMargin):
				t.Fatal("Serve did not return within its drain timeout of the ctx's end")
			}
			took := time.Since(start)
			t.Logf("Serve returned %v after cancel", took.Round(time.Millisecond))
			assert.GreaterOrEqual(t, took, testDrain)
			var dte *executor.DrainTimeoutError
			require.ErrorAs(t, err2, &dte)
			assert.Equal(t, testDrain, dte.After)
			assert.ErrorIs(t, err2, why)
			assert.EqualError(t, err2, "executor: calls into JIT'd code still running 200ms after the session was cancelled (test: SIGTERM); not waiting for them")

			// The call returns late: the session then shuts down.
			endCtl()
			close(release)
			ex.Close()
		})
	}
}

// TestServeNegativeDrainTimeoutWaits: a negative DrainTimeout waits for
// the call for ever, as the stock executor does, and Serve returns nil
// once it has returned.
func TestServeNegativeDrainTimeoutWaits(t *testing.T) {
	execEnd, ctlEnd, err := wiretest.Connect(wiretest.Pipe)
	require.NoError(t, err)
	ex, err := executor.New(executor.Options{DrainTimeout: -1})
	require.NoError(t, err)
	fn, blocked, release := blockingWrapper(ex)
	c, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- ex.Serve(c, execEnd) }()
	ctl, err := wiretest.New(ctlEnd, nil)
	require.NoError(t, err)
	defer ctl.Close()
	_, err = ctl.Start(fn, nil)
	require.NoError(t, err)
	<-blocked
	cancel()
	select {
	case err := <-errc:
		t.Fatalf("Serve returned %v while the call was running", err)
	case <-time.After(3 * testDrain):
	}
	close(release)
	select {
	case err := <-errc:
		assert.NoError(t, err)
	case <-time.After(callTimeout):
		t.Fatal("Serve did not return after the call had")
	}
	ex.Close()
}
