package rt

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/sps"
)

// The TestControllerAccess_* tests mirror orc-rt's ControllerAccessTest
// suite (in SessionTest.cpp) one for one, using mockCA, then add contract
// cases.

const addTag sps.Addr = 0x1000

func TestControllerAccess_Basics(t *testing.T) {
	q := NewQueueingRunner()
	s := NewSession(mockProcessInfo(), q, noErrors(t))
	ca := attachMock(t, s)
	assert.Equal(t, StateAttached, s.State())
	s.Shutdown(nil)
	q.RunFIFOUntilEmpty()
	waitDone(t, s)
	assert.Equal(t, 1, ca.disconnects)
}

func TestControllerAccess_SynchronousCallControllerFailureRunsInline(t *testing.T) {
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	require.NoError(t, s.Attach(&deadCA{}, nil))
	var got WrapperResult
	ran := false
	s.CallController(addTag, nil, func(r WrapperResult) { ran, got = true, r })
	assert.True(t, ran, "ran before CallController returned, without dispatch")
	assert.Equal(t, MsgDisconnected, oobMsg(got))
	s.Close()
}

// CAPICallControllerRoundTrip: the C entry point belongs to native; the
// Go form is the raw-bytes CallController round trip.
func TestControllerAccess_CAPICallControllerRoundTrip(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	ca := newMockCA()
	ca.handlers[addTag] = func(args []byte) WrapperResult { return CopyResult(args) }
	require.NoError(t, s.Attach(ca, nil))
	var got []byte
	s.CallController(addTag, []byte("hello"), func(r WrapperResult) { got = r.Bytes() })
	assert.Equal(t, "hello", string(got))
	s.Close()
}

// controllerAdd is the controller's add(a, b) handler, answered in SPS.
func controllerAdd(args []byte) WrapperResult {
	a, b, err := addSig.DecodeArgs(args)
	if err != nil {
		return OutOfBandResult(err.Error())
	}
	return ResultBytes(addSig.AppendResult(nil, a+b))
}

func TestControllerAccess_ValidCallToController(t *testing.T) {
	q := NewQueueingRunner()
	s := NewSession(mockProcessInfo(), q, noErrors(t))
	ca := newMockCA()
	ca.handlers[addTag] = controllerAdd
	var posted sync.WaitGroup
	ca.post = func(f func()) { posted.Go(f) } // the answer arrives on another goroutine
	require.NoError(t, s.Attach(ca, nil))
	var sum int32
	var callErr error = errors.New("not called")
	Call2(s.ControllerCaller(addTag), addSig, 41, 1, func(v int32, err error) { sum, callErr = v, err })
	posted.Wait()
	q.RunFIFOUntilEmpty()
	require.NoError(t, callErr)
	assert.EqualValues(t, 42, sum)
	s.Shutdown(nil)
	q.RunFIFOUntilEmpty()
	waitDone(t, s)
}

func TestControllerAccess_CallToControllerBeforeAttach(t *testing.T) {
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	defer s.Close()
	var callErr error
	Call2(s.ControllerCaller(addTag), addSig, 41, 1, func(_ int32, err error) { callErr = err })
	assert.EqualError(t, callErr, MsgNoController)
	assert.ErrorIs(t, callErr, ErrNoController)
}

func TestControllerAccess_CallToControllerAfterDetach(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	attachMock(t, s)
	s.Detach(nil)
	var callErr error
	Call2(s.ControllerCaller(addTag), addSig, 41, 1, func(_ int32, err error) { callErr = err })
	assert.EqualError(t, callErr, MsgNoController)
	s.Close()
}

func TestControllerAccess_CallFromController(t *testing.T) {
	q := NewQueueingRunner()
	s := NewSession(mockProcessInfo(), q, noErrors(t))
	fn := s.RegisterWrapper(Handle2(addSig, addHandler))
	ca := attachMock(t, s)
	ca.callWrapper(fn, addSig.AppendArgs(nil, 41, 1), 7)
	_, ok := ca.result(7)
	assert.False(t, ok, "the call waits in the queue")
	q.RunFIFOUntilEmpty()
	r, ok := ca.result(7)
	require.True(t, ok)
	v, err := addSig.DecodeResult(r.Bytes())
	require.NoError(t, err)
	assert.EqualValues(t, 42, v)
	s.Shutdown(nil)
	q.RunFIFOUntilEmpty()
	waitDone(t, s)
}

func TestControllerAccess_WrapperCallTokenReleasedWhenFnReturns(t *testing.T) {
	q := NewQueueingRunner()
	s := NewSession(mockProcessInfo(), q, noErrors(t))
	var stashed ReturnFunc
	fn := s.RegisterWrapper(func(_ *Session, _ []byte, ret ReturnFunc) { stashed = ret })
	ca := attachMock(t, s)
	ca.callWrapper(fn, nil, 1)
	q.RunFIFOUntilEmpty()
	require.NotNil(t, stashed)
	s.Shutdown(nil)
	assert.True(t, isDone(s), "shutdown completed synchronously: the deferred return holds no token")
	stashed(EmptyResult()) // dropped: no controller any more
	_, ok := ca.result(1)
	assert.False(t, ok)
}

func TestControllerAccess_FailConnect(t *testing.T) {
	var log errorLog
	s := NewSession(mockProcessInfo(), noDispatch(t), log.report)
	ca := newMockCA()
	ca.onConnect = func(m *mockCA, _ *BootstrapInfo) error {
		err := errors.New("connect failed")
		m.h.NotifyDisconnected(err)
		return err
	}
	err := s.Attach(ca, nil)
	assert.EqualError(t, err, "connect failed")
	assert.Equal(t, []string{"connect failed"}, log.get(), "reported exactly once")
	assert.Equal(t, StateDetached, s.State())
	s.Close()
}

func TestControllerAccess_FailConnectWithoutNotify(t *testing.T) {
	// A CA that only returns the error: the Session notifies for it.
	var log errorLog
	s := NewSession(mockProcessInfo(), noDispatch(t), log.report)
	ca := newMockCA()
	ca.onConnect = func(*mockCA, *BootstrapInfo) error { return errors.New("refused") }
	assert.EqualError(t, s.Attach(ca, nil), "refused")
	assert.Equal(t, []string{"refused"}, log.get())
	// Late calls from the CA are reported, not executed.
	ca.h.HandleWrapperCall(1, nil, 0)
	assert.Len(t, log.get(), 2)
	assert.Contains(t, log.get()[1], "after NotifyDisconnected")
	s.Close()
}

func TestControllerAccess_BootstrapInfoPassedToConnect(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	syms := NewSymbolTable()
	require.NoError(t, syms.Add("\x01linker_kind_name", 0x1234))
	bi := NewBootstrapInfo(s, syms, map[string][]byte{"key": []byte("value")})
	ca := newMockCA()
	var seen *BootstrapInfo
	ca.onConnect = func(_ *mockCA, bi *BootstrapInfo) error { seen = bi; return nil }
	require.NoError(t, s.Attach(ca, bi))
	require.Same(t, bi, seen)
	a, ok := seen.Symbols.Lookup("\x01linker_kind_name")
	assert.True(t, ok)
	assert.EqualValues(t, 0x1234, a)
	assert.Equal(t, "value", string(seen.Values["key"]))
	s.Close()
}

func TestControllerAccess_PlainAttach(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	ca := newMockCA()
	ca.handlers[addTag] = controllerAdd
	require.NoError(t, s.Attach(ca, nil))
	v, err := Await(func(done func(int32, error)) { Call2(s.ControllerCaller(addTag), addSig, 2, 3, done) })
	require.NoError(t, err)
	assert.EqualValues(t, 5, v)
	s.Close()
}

func TestControllerAccess_TryAttachSuccess(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	err := TryAttach(s, nil, func(*Session) (ControllerAccess, error) {
		ca := newMockCA()
		ca.handlers[addTag] = controllerAdd
		return ca, nil
	})
	require.NoError(t, err)
	v, err := Await(func(done func(int32, error)) { Call2(s.ControllerCaller(addTag), addSig, 40, 2, done) })
	require.NoError(t, err)
	assert.EqualValues(t, 42, v)
	s.Close()
}

func TestControllerAccess_TryAttachFailure(t *testing.T) {
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	err := TryAttach(s, nil, func(*Session) (ControllerAccess, error) {
		return nil, errors.New("failed to create controller access")
	})
	assert.EqualError(t, err, "failed to create controller access")
	assert.Equal(t, StateStart, s.State())
	_, err = Await(func(done func(int32, error)) { Call2(s.ControllerCaller(addTag), addSig, 1, 1, done) })
	assert.EqualError(t, err, MsgNoController)
	s.Close()
}

// onDisconnectRecorder counts handler runs.
type onDisconnectRecorder struct {
	mu   sync.Mutex
	errs []error
	runs int
}

func (r *onDisconnectRecorder) handler(err error) {
	r.mu.Lock()
	r.runs++
	r.errs = append(r.errs, err)
	r.mu.Unlock()
}

func TestControllerAccess_OnDisconnectReportsOrderlyDisconnect(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	var rec onDisconnectRecorder
	s.SetOnDisconnect(rec.handler)
	ca := attachMock(t, s)
	ca.hangup(nil)
	s.Close()
	assert.Equal(t, 1, rec.runs)
	assert.Equal(t, []error{nil}, rec.errs)
}

func TestControllerAccess_OnDisconnectReportsAbnormalDisconnect(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	var rec onDisconnectRecorder
	s.SetOnDisconnect(rec.handler)
	ca := attachMock(t, s)
	boom := errors.New("connection reset")
	ca.hangup(boom)
	s.Close()
	require.Equal(t, 1, rec.runs)
	assert.Same(t, boom, rec.errs[0], "delivered unchanged")
}

func TestControllerAccess_DisconnectErrorRoutedToErrorReporterWithNoHandler(t *testing.T) {
	var log errorLog
	s := NewSession(mockProcessInfo(), InlineRunner{}, log.report)
	ca := attachMock(t, s)
	ca.hangup(errors.New("connection reset"))
	s.Close()
	assert.Equal(t, []string{"connection reset"}, log.get())
}

func TestControllerAccess_OrderlyDisconnectNotRoutedToErrorReporter(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	ca := attachMock(t, s)
	ca.hangup(nil)
	s.Close()
}

func TestControllerAccess_OnDisconnectSuppressesErrorReporterRouting(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	var rec onDisconnectRecorder
	s.SetOnDisconnect(rec.handler)
	ca := attachMock(t, s)
	ca.hangup(errors.New("connection reset"))
	s.Close()
	assert.Equal(t, 1, rec.runs)
}

func TestControllerAccess_OnDisconnectReportsConnectFailure(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	var rec onDisconnectRecorder
	s.SetOnDisconnect(rec.handler)
	ca := newMockCA()
	ca.onConnect = func(m *mockCA, _ *BootstrapInfo) error {
		err := errors.New("no route")
		m.h.NotifyDisconnected(err)
		return err
	}
	assert.Error(t, s.Attach(ca, nil))
	s.Close()
	require.Equal(t, 1, rec.runs)
	assert.EqualError(t, rec.errs[0], "no route")
}

func TestControllerAccess_OnDisconnectReportsSuccessWithoutAttach(t *testing.T) {
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	var rec onDisconnectRecorder
	s.SetOnDisconnect(rec.handler)
	s.Close()
	assert.Equal(t, 1, rec.runs)
	assert.Equal(t, []error{nil}, rec.errs)
}

func TestControllerAccess_OnDisconnectRunsBeforeDetachAndShutdown(t *testing.T) {
	var ops opLog
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	s.AddService(newMockService(&ops, "svc"))
	s.SetOnDisconnect(func(error) { ops.add("disconnect") })
	attachMock(t, s)
	s.Close()
	assert.Equal(t, []string{"disconnect", "svc.detach", "svc.shutdown"}, ops.get())
}

func TestControllerAccess_ShutdownFromOnDisconnectHandler(t *testing.T) {
	var ops opLog
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	svc := newMockService(&ops, "svc")
	s.AddService(svc)
	shutdownRan := false
	s.SetOnDisconnect(func(error) { s.Shutdown(func() { shutdownRan = true }) })
	ca := attachMock(t, s)
	s.Detach(nil) // local detach; the handler requests shutdown
	waitDone(t, s)
	assert.True(t, shutdownRan)
	assert.Equal(t, 1, svc.detaches)
	assert.Equal(t, 1, svc.shutdowns)
	assert.Equal(t, 1, ca.disconnects)
	assert.False(t, svc.shutdownRequested, "ShutdownRequested is snapshotted before the handler runs")
}

func TestControllerAccess_ShutdownFromOnDisconnectHandlerAfterRemoteHangup(t *testing.T) {
	var ops opLog
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	svc := newMockService(&ops, "svc")
	s.AddService(svc)
	shutdownRan := false
	s.SetOnDisconnect(func(error) { s.Shutdown(func() { shutdownRan = true }) })
	ca := attachMock(t, s)
	ca.hangup(nil) // the controller hangs up
	waitDone(t, s)
	assert.True(t, shutdownRan)
	assert.Equal(t, 1, svc.detaches)
	assert.Equal(t, 1, svc.shutdowns)
	assert.Equal(t, 0, ca.disconnects, "no local Disconnect after a remote hangup")
}

// ---- contract cases beyond upstream's suite ----

func TestControllerAccess_PendingCallsDrainedWithDisconnected(t *testing.T) {
	q := NewQueueingRunner()
	s := NewSession(mockProcessInfo(), q, noErrors(t))
	ca := attachMock(t, s) // no handler: calls stay pending
	var errs []error
	for range 3 {
		Call2(s.ControllerCaller(addTag), addSig, 1, 1, func(_ int32, err error) { errs = append(errs, err) })
	}
	s.Shutdown(nil)
	assert.Empty(t, errs, "drained calls are dispatched, not run inline")
	assert.Equal(t, 3, q.Len())
	assert.False(t, isDone(s), "the drained calls' tasks hold tokens")
	q.RunFIFOUntilEmpty()
	require.Len(t, errs, 3)
	for _, err := range errs {
		assert.ErrorIs(t, err, ErrDisconnected)
		assert.EqualError(t, err, "disconnected")
	}
	waitDone(t, s)
	_ = ca
}

func TestControllerAccess_DetachDuringConnect(t *testing.T) {
	var ops opLog
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	ca := newMockCA()
	ca.onConnect = func(*mockCA, *BootstrapInfo) error {
		s.Shutdown(func() { ops.add("shutdown") }) // only raises the target
		ops.add("connected")
		return nil
	}
	require.NoError(t, s.Attach(ca, nil))
	waitDone(t, s)
	assert.Equal(t, 1, ca.disconnects)
	assert.Equal(t, []string{"connected", "shutdown"}, ops.get())
}

func TestControllerAccess_RemoteHangupDuringConnect(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	ca := newMockCA()
	ca.onConnect = func(m *mockCA, _ *BootstrapInfo) error { m.hangup(nil); return nil }
	require.NoError(t, s.Attach(ca, nil))
	assert.Equal(t, StateDetached, s.State())
	s.Close()
}

func TestControllerAccess_AttachTwiceFails(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	attachMock(t, s)
	assert.ErrorIs(t, s.Attach(newMockCA(), nil), ErrAttach)
	assert.Error(t, s.Attach(nil, nil))
	s.Close()
}

func TestControllerAccess_NotifyTwicePanics(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	ca := attachMock(t, s)
	ca.hangup(nil)
	assert.PanicsWithValue(t, "rt: ControllerAccess called NotifyDisconnected twice", func() { ca.h.NotifyDisconnected(nil) })
	s.Close()
}

func TestControllerAccess_CompleteTwicePanics(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	ca := attachMock(t, s)
	c := &PendingCall{onComplete: func(WrapperResult) {}}
	ca.h.FailControllerCallInline(c)
	assert.PanicsWithValue(t, "rt: controller call completed twice", func() { ca.h.HandleControllerCallResult(c, EmptyResult()) })
	s.Close()
}

func TestControllerAccess_ResultAfterKeepaliveClosedIsReported(t *testing.T) {
	var log errorLog
	s := NewSession(mockProcessInfo(), InlineRunner{}, log.report)
	ca := newMockCA()
	var pc *PendingCall
	ca.onConnect = func(m *mockCA, _ *BootstrapInfo) error { return nil }
	require.NoError(t, s.Attach(ca, nil))
	// Capture a pending call, then misbehave: hang up without draining it.
	var got WrapperResult
	s.CallController(addTag, nil, func(r WrapperResult) { got = r })
	ca.mu.Lock()
	pc = ca.pending[0]
	ca.pending = map[uint64]*PendingCall{}
	h := ca.h
	ca.mu.Unlock()
	tok, _ := s.AcquireKeepalive()
	s.Shutdown(nil) // group closes; tok keeps shutdown pending
	// h is notified by now, so the late result is dropped and reported.
	h.HandleControllerCallResult(pc, EmptyResult())
	assert.Contains(t, log.get()[0], "after NotifyDisconnected")
	tok.Release()
	waitDone(t, s)
	// Direct path to the closed-group branch.
	h2 := &SessionHandle{s: s}
	pc2 := &PendingCall{onComplete: func(r WrapperResult) { got = r }}
	h2.HandleControllerCallResult(pc2, ResultBytes([]byte("late")))
	assert.Equal(t, MsgDisconnected, oobMsg(got))
	assert.Contains(t, log.get()[1], "after the keepalive group closed")
}

func TestControllerAccess_IncomingCallDroppedAfterKeepaliveClosed(t *testing.T) {
	q := NewQueueingRunner()
	s := NewSession(mockProcessInfo(), q, noErrors(t))
	called := false
	fn := s.RegisterWrapper(func(*Session, []byte, ReturnFunc) { called = true })
	ca := attachMock(t, s)
	tok, _ := s.AcquireKeepalive()
	// Detach only: a remote hangup that is not yet notified would still
	// deliver; simulate the window after close with a handle that has not
	// been notified.
	s.Shutdown(nil)
	h := &SessionHandle{s: s}
	h.HandleWrapperCall(fn, nil, 3)
	assert.Equal(t, 0, q.Len(), "dropped silently: nothing dispatched")
	assert.False(t, called)
	_, ok := ca.result(3)
	assert.False(t, ok)
	tok.Release()
	waitDone(t, s)
}

// TestDirectWrite: BeginDirectWrite holds a keepalive token for a
// RegisterDirectWriter target only (shutdown waits for Finish or Drop),
// Finish runs the direct form with the fault and answers the call, and
// after shutdown is requested the CA is sent the usual way.
func TestDirectWrite(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	ca := newMockCA()
	require.NoError(t, s.Attach(ca, nil))
	var faults []*WriteFault
	direct := s.RegisterDirectWriter(func(_ *Session, _ []byte, ret ReturnFunc) { ret(ResultBytes([]byte("fn"))) },
		func(_ *Session, f *WriteFault, ret ReturnFunc) {
			faults = append(faults, f)
			ret(ResultBytes([]byte("direct")))
		})
	plain := s.RegisterWrapper(func(_ *Session, _ []byte, ret ReturnFunc) { ret(EmptyResult()) })

	_, ok := ca.h.BeginDirectWrite(plain)
	assert.False(t, ok, "a wrapper without a direct form")
	_, ok = ca.h.BeginDirectWrite(0x1234)
	assert.False(t, ok, "an unknown target")

	d, ok := ca.h.BeginDirectWrite(direct)
	require.True(t, ok)
	d.Finish(direct, 7, nil)
	d, ok = ca.h.BeginDirectWrite(direct)
	require.True(t, ok)
	d.Finish(direct, 8, &WriteFault{Addr: 0x1000})
	for id := uint64(7); id <= 8; id++ {
		r, ok := ca.result(id)
		require.True(t, ok, "call %d answered", id)
		assert.Equal(t, "direct", string(r.Bytes()))
	}
	assert.Equal(t, []*WriteFault{nil, {Addr: 0x1000}}, faults)

	d, ok = ca.h.BeginDirectWrite(direct)
	require.True(t, ok)
	s.Shutdown(nil)
	assert.False(t, isDone(s), "shutdown waits for the write's token")
	_, ok = ca.h.BeginDirectWrite(direct)
	assert.False(t, ok, "after shutdown is requested")
	d.Drop()
	waitDone(t, s)
}
