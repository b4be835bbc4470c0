package rt

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/sps"
)

// The TestInProcessControllerAccess_* tests mirror orc-rt's
// InProcessControllerAccessTest one for one, with Loopback as the CA and
// LoopbackController as upstream's MockIPEPC.

const echoTag sps.Addr = 0x42

func echoController(ctl *LoopbackController, _ *BootstrapInfo) error {
	ctl.RegisterFunc(echoTag, func(args []byte) WrapperResult { return CopyResult(args) })
	return nil
}

func TestInProcessControllerAccess_ConstructAndDestroyWithoutConnect(t *testing.T) {
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	l := NewLoopback(func(*LoopbackController, *BootstrapInfo) error {
		t.Error("OnConnect called without attach")
		return nil
	})
	assert.Nil(t, l.Controller())
	s.Close()
}

func TestInProcessControllerAccess_AttachAndShutdownViaSession(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	var ctl *LoopbackController
	l := NewLoopback(func(c *LoopbackController, _ *BootstrapInfo) error { ctl = c; return nil })
	require.NoError(t, s.Attach(l, nil))
	require.NotNil(t, ctl)
	assert.Same(t, ctl, l.Controller())
	s.Close()
	assert.Equal(t, StateShutdown, s.State())
}

func TestInProcessControllerAccess_OnConnectFailureIsReportedAndDetaches(t *testing.T) {
	var log errorLog
	s := NewSession(mockProcessInfo(), InlineRunner{}, log.report)
	l := NewLoopback(func(*LoopbackController, *BootstrapInfo) error { return errors.New("mock connect failed") })
	err := s.Attach(l, nil)
	require.Error(t, err)
	assert.Equal(t, []string{"rt: loopback: OnConnect: mock connect failed"}, log.get())
	assert.Equal(t, StateDetached, s.State())
	var r WrapperResult
	s.CallController(echoTag, nil, func(res WrapperResult) { r = res })
	assert.Equal(t, MsgNoController, oobMsg(r))
	s.Close()
}

func TestInProcessControllerAccess_CallControllerSuccess(t *testing.T) {
	q := NewQueueingRunner()
	s := NewSession(mockProcessInfo(), q, noErrors(t))
	require.NoError(t, s.Attach(NewLoopback(echoController), nil))
	var got string
	s.CallController(echoTag, []byte("hello"), func(r WrapperResult) { got = string(r.Bytes()) })
	q.RunFIFOUntilEmpty()
	assert.Equal(t, "hello", got)
	s.Shutdown(nil)
	q.RunFIFOUntilEmpty()
	waitDone(t, s)
}

func TestInProcessControllerAccess_CallControllerOutOfBandError(t *testing.T) {
	q := NewQueueingRunner()
	s := NewSession(mockProcessInfo(), q, noErrors(t))
	require.NoError(t, s.Attach(NewLoopback(func(ctl *LoopbackController, _ *BootstrapInfo) error {
		ctl.RegisterFunc(echoTag, func([]byte) WrapperResult { return OutOfBandResult("simulated failure") })
		return nil
	}), nil))
	var got WrapperResult
	s.CallController(echoTag, nil, func(r WrapperResult) { got = r })
	q.RunFIFOUntilEmpty()
	assert.Equal(t, "simulated failure", oobMsg(got))
	s.Shutdown(nil)
	q.RunFIFOUntilEmpty()
	waitDone(t, s)
}

func TestInProcessControllerAccess_DisconnectDrainsPendingCalls(t *testing.T) {
	q := NewQueueingRunner()
	s := NewSession(mockProcessInfo(), q, noErrors(t))
	l := NewLoopback(func(ctl *LoopbackController, _ *BootstrapInfo) error {
		ctl.RegisterHandler(echoTag, func(*LoopbackController, uint64, []byte) {}) // never answers
		return nil
	})
	require.NoError(t, s.Attach(l, nil))
	var got WrapperResult
	s.CallController(echoTag, nil, func(r WrapperResult) { got = r })
	l.Controller().Disconnect()
	q.RunFIFOUntilEmpty()
	assert.Equal(t, MsgDisconnected, oobMsg(got))
	assert.Equal(t, StateDetached, s.State())
	s.Close()
}

func TestInProcessControllerAccess_CallFromControllerSuccess(t *testing.T) {
	q := NewQueueingRunner()
	s := NewSession(mockProcessInfo(), q, noErrors(t))
	fn := s.RegisterWrapper(func(_ *Session, args []byte, ret ReturnFunc) { ret(ResultBytes(args)) })
	l := NewLoopback(nil)
	require.NoError(t, s.Attach(l, nil))
	var got WrapperResult
	returned := false
	l.Controller().CallWrapper(fn, []byte("world"), func(r WrapperResult) { got, returned = r, true })
	assert.False(t, returned, "the call sits in the queue")
	assert.Equal(t, 1, q.Len())
	q.RunFIFOUntilEmpty()
	require.True(t, returned)
	assert.Equal(t, "world", string(got.Bytes()))
	s.Shutdown(nil)
	q.RunFIFOUntilEmpty()
	waitDone(t, s)
}

func TestInProcessControllerAccess_BootstrapValuesExposeSubtargetFeatures(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	bi, err := DefaultBootstrapInfo(s, nil, nil)
	require.NoError(t, err)
	var found []byte
	l := NewLoopback(func(ctl *LoopbackController, _ *BootstrapInfo) error {
		for k, v := range ctl.Bootstrap().Values {
			if k == SubtargetFeaturesKey {
				found = v
			}
		}
		return nil
	})
	require.NoError(t, s.Attach(l, bi))
	assert.Equal(t, s.ProcessInfo().CPUFeatures(), string(found))
	a, ok := l.Controller().Lookup(CName(SessionInstanceSymbol))
	assert.True(t, ok)
	assert.Equal(t, s.InstanceAddr(), a)
	s.Close()
}

// ---- beyond upstream's suite ----

// OnConnect fails while a controller call it started is still in flight
// on another goroutine: Connect waits for it, then drains and notifies
// exactly once with the connect error.
func TestLoopback_OnConnectFailureWaitsForInFlightMessages(t *testing.T) {
	r := NewGoRunner(0)
	defer r.Close()
	var log errorLog
	s := NewSession(mockProcessInfo(), r, log.report)
	entered, release := make(chan struct{}), make(chan struct{})
	fn := s.RegisterWrapper(func(_ *Session, _ []byte, ret ReturnFunc) { ret(EmptyResult()) })
	var inFlight sync.WaitGroup
	var got WrapperResult
	l := NewLoopback(func(ctl *LoopbackController, _ *BootstrapInfo) error {
		inFlight.Go(func() {
			// Hold a message scope open across the failure.
			if !ctl.l.enter() {
				t.Error("connection not open during onConnect")
				return
			}
			close(entered)
			<-release
			// Leave only once Connect has closed the connection and is
			// waiting for this scope.
			for {
				ctl.l.mu.Lock()
				open := ctl.l.connected
				ctl.l.mu.Unlock()
				if !open {
					break
				}
				runtime.Gosched()
			}
			ctl.l.leave()
		})
		<-entered
		ctl.CallWrapper(fn, nil, func(res WrapperResult) { got = res })
		go func() { close(release) }()
		return errors.New("late failure")
	})
	err := s.Attach(l, nil)
	require.EqualError(t, err, "rt: loopback: OnConnect: late failure")
	inFlight.Wait()
	s.Close()
	assert.Equal(t, []string{"rt: loopback: OnConnect: late failure"}, log.get(), "notified exactly once, with the error")
	_ = got
}

func TestLoopback_CallIDsStartAtZero(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	var ids []uint64
	l := NewLoopback(func(ctl *LoopbackController, _ *BootstrapInfo) error {
		ctl.RegisterHandler(echoTag, func(c *LoopbackController, id uint64, args []byte) {
			ids = append(ids, id)
			c.ReturnResult(id, CopyResult(args))
		})
		return nil
	})
	require.NoError(t, s.Attach(l, nil))
	for range 3 {
		s.CallController(echoTag, nil, func(WrapperResult) {})
	}
	assert.Equal(t, []uint64{0, 1, 2}, ids)
	s.Close()
}

func TestLoopback_InvalidCallID(t *testing.T) {
	var log errorLog
	s := NewSession(mockProcessInfo(), InlineRunner{}, log.report)
	l := NewLoopback(nil)
	require.NoError(t, s.Attach(l, nil))
	l.Controller().ReturnResult(99, EmptyResult())
	l.SendWrapperResult(77, EmptyResult())
	assert.Equal(t, []string{
		"rt: loopback: Invalid call id 99",
		"rt: loopback controller: Invalid call id 77",
	}, log.get())
	s.Close()
	l.Controller().ReturnResult(100, EmptyResult()) // after disconnect: dropped, not reported
	assert.Len(t, log.get(), 2)
}

func TestLoopback_NoHandlerForTag(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	require.NoError(t, s.Attach(NewLoopback(nil), nil))
	var r WrapperResult
	s.CallController(0x77, nil, func(res WrapperResult) { r = res })
	assert.Equal(t, "rt: loopback controller has no handler for tag 0x77", oobMsg(r))
	s.Close()
}

// A wrapper run inline inside the controller's message scope shuts the
// session down: Disconnect must not wait for its own scope.
func TestLoopback_DisconnectFromInsideAMessage(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	var ctlResult WrapperResult
	fn := s.RegisterWrapper(func(s *Session, _ []byte, ret ReturnFunc) {
		s.Shutdown(nil)
		ret(ResultBytes([]byte("late")))
	})
	l := NewLoopback(nil)
	require.NoError(t, s.Attach(l, nil))
	l.Controller().CallWrapper(fn, nil, func(r WrapperResult) { ctlResult = r })
	waitDone(t, s)
	// The result raced the disconnect: the controller learned of the call
	// exactly once, either way.
	assert.True(t, string(ctlResult.Bytes()) == "late" || oobMsg(ctlResult) == MsgDisconnected)
}

// A CallController that reaches the CA before Connect has stored its
// handle fails inline through the call's own handle.
func TestLoopback_CallControllerBeforeConnect(t *testing.T) {
	s := newDirect(t)
	l := NewLoopback(nil)
	var got WrapperResult
	l.CallController(echoTag, nil, &PendingCall{onComplete: func(r WrapperResult) { got = r }, h: &SessionHandle{s: s}})
	assert.Equal(t, MsgDisconnected, oobMsg(got))
}

func TestLoopback_CallWrapperAfterDisconnect(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	l := NewLoopback(nil)
	require.NoError(t, s.Attach(l, nil))
	ctl := l.Controller()
	s.Close()
	var r WrapperResult
	ctl.CallWrapper(1, nil, func(res WrapperResult) { r = res })
	assert.Equal(t, MsgDisconnected, oobMsg(r))
	assert.Error(t, l.Connect(&SessionHandle{s: s}, nil), "a Loopback connects once")
}

func TestLoopback_ControllerCallsPendingAtDisconnectFail(t *testing.T) {
	q := NewQueueingRunner()
	s := NewSession(mockProcessInfo(), q, noErrors(t))
	fn := s.RegisterWrapper(func(*Session, []byte, ReturnFunc) {}) // never returns
	l := NewLoopback(nil)
	require.NoError(t, s.Attach(l, nil))
	var r WrapperResult
	l.Controller().CallWrapper(fn, nil, func(res WrapperResult) { r = res })
	s.Detach(nil)
	assert.Equal(t, MsgDisconnected, oobMsg(r))
	q.RunFIFOUntilEmpty()
	s.Close()
}

// TestLoopback_HammerCallsAcrossDisconnect: executor and controller calls
// race a disconnect; every call completes exactly once on both sides.
func TestLoopback_HammerCallsAcrossDisconnect(t *testing.T) {
	for round := range 30 {
		r := NewGoRunner(0)
		s := NewSession(mockProcessInfo(), r, noErrors(t))
		fn := s.RegisterWrapper(Handle2(addSig, addHandler))
		l := NewLoopback(func(ctl *LoopbackController, _ *BootstrapInfo) error {
			ctl.RegisterFunc(addTag, controllerAdd)
			return nil
		})
		require.NoError(t, s.Attach(l, nil))
		ctl := l.Controller()
		var issued, completed atomic.Int64
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for i := range 50 {
					var once atomic.Bool
					issued.Add(1)
					cb := func(v int32, err error) {
						if once.Swap(true) {
							t.Error("completed twice")
						}
						if err == nil && v != int32(i+g) {
							t.Errorf("got %d, want %d", v, i+g)
						}
						completed.Add(1)
					}
					if i%2 == 0 {
						Call2(s.ControllerCaller(addTag), addSig, int32(i), int32(g), cb)
					} else {
						Call2(ctl.Caller(fn), addSig, int32(i), int32(g), cb)
					}
				}
			})
		}
		if round%2 == 0 {
			ctl.Disconnect()
		} else {
			s.Detach(nil)
		}
		wg.Wait()
		s.Close()
		r.Close()
		// Controller->executor calls dropped at keepalive close were failed
		// by the disconnect drain; everything else completed.
		assert.Equal(t, issued.Load(), completed.Load(), "round %d", round)
	}
}
