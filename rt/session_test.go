package rt

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The TestSession_* tests mirror orc-rt's SessionTest suite
// (test/unit/bedrock/SessionTest.cpp) one for one, then add Go-specific
// cases.

func TestSession_TrivialConstructionAndDestruction(t *testing.T) {
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	assert.Equal(t, StateStart, s.State())
	s.Close()
	assert.Equal(t, StateShutdown, s.State())
}

func TestSession_ReportError(t *testing.T) {
	var log errorLog
	s := NewSession(mockProcessInfo(), noDispatch(t), log.report)
	defer s.Close()
	s.ReportError(errors.New("foo"))
	s.ReportError(nil) // ignored
	assert.Equal(t, []string{"foo"}, log.get())
}

func TestSession_ReportErrorsViaSession(t *testing.T) {
	var log errorLog
	s := NewSession(mockProcessInfo(), noDispatch(t), log.report)
	defer s.Close()
	report := s.Reporter()
	report(errors.New("via session"))
	assert.Equal(t, []string{"via session"}, log.get())
}

func TestSession_SingleService(t *testing.T) {
	var ops opLog
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	svc := newMockService(&ops, "svc")
	s.AddService(svc)
	s.Close()
	d, sd := svc.ops()
	assert.Equal(t, 0, d)
	assert.Equal(t, 1, sd)
}

func TestSession_MultipleServices(t *testing.T) {
	var ops opLog
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	var svcs []*mockService
	for _, n := range []string{"s0", "s1", "s2"} {
		svc := newMockService(&ops, n)
		s.AddService(svc)
		svcs = append(svcs, svc)
	}
	s.Close()
	for i, want := range [][2]int{{2, 5}, {1, 4}, {0, 3}} {
		d, sd := svcs[i].ops()
		assert.Equal(t, want[0], d, "service %d detach index", i)
		assert.Equal(t, want[1], sd, "service %d shutdown index", i)
	}
}

func TestSession_ScheduleShutdownFromOnDetachHandler(t *testing.T) {
	var ops opLog
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	s.AddOnDetach(func() { ops.add("detach-1") })
	s.AddOnDetach(func() {
		ops.add("detach-2")
		s.Shutdown(func() { ops.add("shutdown") })
	})
	s.Detach(func() { ops.add("detach-3") })
	// Detach completed the whole sequence synchronously: no controller, no
	// token held, nothing dispatched.
	require.True(t, isDone(s))
	assert.Equal(t, []string{"detach-3", "detach-2", "detach-1", "shutdown"}, ops.get())
}

func TestSession_RedundantAsyncShutdown(t *testing.T) {
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	s.Close()
	ran := false
	s.Shutdown(func() { ran = true })
	assert.True(t, ran)
}

func TestSession_ExpectedShutdownSequenceWithNoOutstandingKeepalives(t *testing.T) {
	var ops opLog
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	svc := newMockService(&ops, "svc")
	s.AddService(svc)
	sdOp := -1
	s.Shutdown(func() { _, sdOp = svc.ops() })
	waitDone(t, s)
	assert.Equal(t, 1, sdOp, "services shut down before the shutdown callback")
}

func TestSession_OutstandingKeepalivesDelayShutdown(t *testing.T) {
	var ops opLog
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	svc := newMockService(&ops, "svc")
	s.AddService(svc)
	tok, err := s.AcquireKeepalive()
	require.NoError(t, err)

	completed := false
	s.Shutdown(func() { completed = true })
	d, sd := svc.ops()
	assert.Equal(t, 0, d, "onDetach ran")
	assert.Equal(t, -1, sd, "onShutdown must wait for the token")
	assert.False(t, completed)
	assert.False(t, isDone(s))

	_, ok := s.KeepaliveSource().Acquire()
	assert.False(t, ok, "new tokens are refused once shutdown is requested")
	_, err = s.AcquireKeepalive()
	assert.ErrorIs(t, err, ErrKeepaliveDenied)
	var denied *KeepaliveDeniedError
	assert.ErrorAs(t, err, &denied)
	assert.EqualError(t, err, "rt: keepalive denied: session is shutting down")

	tok.Release()
	_, sd = svc.ops()
	assert.Equal(t, 1, sd)
	assert.True(t, completed)
	assert.True(t, isDone(s))
}

func TestSession_CallWithKeepaliveVoidFn(t *testing.T) {
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	calls := 0
	assert.True(t, s.CallWithKeepalive(func() { calls++ }))
	assert.Equal(t, 1, calls)
	s.Close()
	assert.False(t, s.CallWithKeepalive(func() { calls++ }))
	assert.Equal(t, 1, calls)
}

func TestSession_CallWithKeepaliveNonVoidFn(t *testing.T) {
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	v, ok := CallWithKeepalive(s, func() int { return 42 })
	assert.True(t, ok)
	assert.Equal(t, 42, v)
	s.Close()
	v, ok = CallWithKeepalive(s, func() int { return 42 })
	assert.False(t, ok)
	assert.Zero(t, v)
}

func TestSession_CallWithKeepaliveAsyncFn(t *testing.T) {
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	async := func(x int, ret func(int)) { ret(x * 2) }
	got, sideEffect := 0, 0
	ok := s.CallWithKeepalive(func() { sideEffect++; async(21, func(v int) { got = v }) })
	assert.True(t, ok)
	assert.Equal(t, 42, got)
	s.Close()
	got = 0
	ok = s.CallWithKeepalive(func() { sideEffect++; async(21, func(v int) { got = v }) })
	assert.False(t, ok)
	assert.Zero(t, got, "neither the function nor its return ran")
	assert.Equal(t, 1, sideEffect)
}

type counterService struct {
	mockService
	value int
}

func (c *counterService) inc() int { c.value++; return c.value }

func TestSession_AddServiceAndUseRef(t *testing.T) {
	var ops opLog
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	defer s.Close()
	svc := &counterService{mockService: *newMockService(&ops, "c")}
	s.AddService(svc)
	assert.Equal(t, 1, svc.inc())
}

func TestSession_CreateServiceAndUseRef(t *testing.T) {
	var ops opLog
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	svc, err := CreateService(s, func(*Session) (*counterService, error) {
		return &counterService{mockService: *newMockService(&ops, "c"), value: 41}, nil
	})
	require.NoError(t, err)
	assert.Equal(t, 42, svc.inc())
	s.Close()
	assert.Equal(t, 1, svc.shutdowns, "the created service is managed")
}

func TestSession_TryCreateServiceSuccess(t *testing.T) {
	var ops opLog
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	defer s.Close()
	svc, err := CreateService(s, func(*Session) (*mockService, error) { return newMockService(&ops, "ok"), nil })
	require.NoError(t, err)
	require.NotNil(t, svc)
}

func TestSession_TryCreateServiceFailure(t *testing.T) {
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	defer s.Close()
	svc, err := CreateService(s, func(*Session) (*mockService, error) { return nil, errors.New("create failed") })
	assert.EqualError(t, err, "create failed")
	assert.Nil(t, svc)
}

// ---- Go-specific lifecycle cases ----

func TestSession_ServiceAddedAfterDetachGetsDetachAtOnce(t *testing.T) {
	var ops opLog
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	s.Detach(nil)
	require.Equal(t, StateDetached, s.State())
	late := newMockService(&ops, "late")
	s.AddService(late)
	d, sd := late.ops()
	assert.Equal(t, 0, d)
	assert.Equal(t, -1, sd)
	assert.False(t, late.shutdownRequested)
	s.Close()
	_, sd = late.ops()
	assert.Equal(t, 1, sd, "a late service still gets onShutdown through the chain")
	assert.Equal(t, 1, late.detaches)
	assert.Equal(t, 1, late.shutdowns)
}

func TestSession_ServiceAddedAfterShutdownGetsBothHooksAtOnce(t *testing.T) {
	var ops opLog
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	s.Close()
	late := newMockService(&ops, "late")
	s.AddService(late)
	assert.Equal(t, []string{"late.detach", "late.shutdown"}, ops.get())
	assert.True(t, late.shutdownRequested)
}

func TestSession_ShutdownRequestedVisibleToOnDetach(t *testing.T) {
	var ops opLog
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	svc := newMockService(&ops, "svc")
	s.AddService(svc)
	s.Shutdown(nil)
	waitDone(t, s)
	assert.True(t, svc.shutdownRequested)

	s2 := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	svc2 := newMockService(&ops, "svc2")
	s2.AddService(svc2)
	s2.Detach(nil)
	assert.False(t, svc2.shutdownRequested)
	s2.Close()
}

func TestSession_AsyncServiceChain(t *testing.T) {
	var ops opLog
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	a, b := newMockService(&ops, "a"), newMockService(&ops, "b")
	a.deferDone = make(chan func(), 2)
	b.deferDone = make(chan func(), 2)
	s.AddService(a)
	s.AddService(b)
	s.Shutdown(nil)
	// b (registered last) is first; a waits for b's done.
	assert.Equal(t, []string{"b.detach"}, ops.get())
	go (<-b.deferDone)() // completion from another goroutine
	(<-a.deferDone)()
	(<-b.deferDone)()
	(<-a.deferDone)()
	waitDone(t, s)
	assert.Equal(t, []string{"b.detach", "a.detach", "b.shutdown", "a.shutdown"}, ops.get())
}

func TestSession_ServiceDoneTwicePanics(t *testing.T) {
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	var ops opLog
	svc := newMockService(&ops, "x")
	svc.deferDone = make(chan func(), 2)
	s.AddService(svc)
	s.Detach(nil)
	done := <-svc.deferDone
	done()
	assert.PanicsWithValue(t, "rt: service called its lifecycle completion callback twice", done)
	s.Shutdown(nil)
	(<-svc.deferDone)()
	waitDone(t, s)
}

func TestSession_CallsAfterShutdown(t *testing.T) {
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	s.Close()
	_, ok := s.KeepaliveSource().Acquire()
	assert.False(t, ok)
	var r WrapperResult
	s.CallController(1, nil, func(res WrapperResult) { r = res })
	assert.Equal(t, MsgNoController, oobMsg(r))
	ran := 0
	s.AddOnShutdown(func() { ran++ })
	s.Shutdown(func() { ran++ })
	s.Detach(func() { ran++ })
	s.AddOnDetach(func() { ran++ })
	assert.Equal(t, 4, ran)
	err := s.Attach(newMockCA(), nil)
	assert.ErrorIs(t, err, ErrAttach)
	s.Close() // idempotent
}

func TestSession_SetOnDisconnectAfterAttachPanics(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	attachMock(t, s)
	assert.Panics(t, func() { s.SetOnDisconnect(func(error) {}) })
	s.Close()
}

func TestSession_DetachThenShutdown(t *testing.T) {
	var ops opLog
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	svc := newMockService(&ops, "svc")
	s.AddService(svc)
	s.Detach(func() { ops.add("detached") })
	assert.Equal(t, StateDetached, s.State())
	s.Detach(func() { ops.add("detached-again") }) // runs at once
	s.Shutdown(func() { ops.add("shut") })
	waitDone(t, s)
	assert.Equal(t, []string{"svc.detach", "detached", "detached-again", "svc.shutdown", "shut"}, ops.get())
}

func TestSession_ShutdownCallbacksLIFO(t *testing.T) {
	var order []int
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	s.AddOnShutdown(func() { order = append(order, 1) })
	s.AddOnShutdown(func() { order = append(order, 2) })
	s.Shutdown(func() { order = append(order, 3) })
	waitDone(t, s)
	assert.Equal(t, []int{3, 2, 1}, order)
}

func TestSession_ShutdownRunsOnReleasingGoroutine(t *testing.T) {
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	tok, err := s.AcquireKeepalive()
	require.NoError(t, err)
	s.Shutdown(nil)
	var ran atomic.Bool
	s.AddOnShutdown(func() { ran.Store(true) })
	done := make(chan struct{})
	go func() {
		tok.Release() // the shutdown chain runs here
		assert.True(t, ran.Load())
		close(done)
	}()
	<-done
	waitDone(t, s)
}

func TestSession_ReentrantKeepaliveDeniedAfterClose(t *testing.T) {
	// A goroutine already holding a token is refused a nested one once
	// shutdown has closed the group.
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	nestedOK := true
	outer := s.CallWithKeepalive(func() {
		s.Shutdown(nil)
		nestedOK = s.CallWithKeepalive(func() {})
	})
	assert.True(t, outer)
	assert.False(t, nestedOK)
	waitDone(t, s)
}

func TestState_String(t *testing.T) {
	for st, want := range map[State]string{
		stateNone: "None", StateStart: "Start", StateAttached: "Attached",
		StateDetached: "Detached", StateShutdown: "Shutdown", 9: "State(9)",
	} {
		assert.Equal(t, want, st.String())
	}
}

func TestNewSession_NilDispatcherPanics(t *testing.T) {
	assert.Panics(t, func() { NewSession(mockProcessInfo(), nil, nil) })
}

func TestLogErrors(t *testing.T) {
	// The default reporter must not panic.
	s := NewSession(mockProcessInfo(), noDispatch(t), nil)
	s.ReportError(errors.New("logged"))
	s.Close()
}
