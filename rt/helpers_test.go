package rt

import (
	"fmt"
	"github.com/orcgo/orcrt/rt/dialect"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/orcgo/orcrt/sps"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// mockProcessInfo is upstream's mockExecutorProcessInfo().
func mockProcessInfo() ProcessInfo {
	pi, err := NewProcessInfo("arm64-apple-darwin", 16384, "+neon, +fullfp16")
	if err != nil {
		panic(err)
	}
	return pi
}

// errorLog is upstream's AccumulateErrors.
type errorLog struct {
	mu   sync.Mutex
	msgs []string
}

func (e *errorLog) report(_ *Session, err error) {
	e.mu.Lock()
	e.msgs = append(e.msgs, err.Error())
	e.mu.Unlock()
}

func (e *errorLog) get() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.msgs...)
}

// noErrors is upstream's noErrors: any report fails the test.
func noErrors(t *testing.T) ErrorReporter {
	return func(_ *Session, err error) { t.Errorf("unexpected error reported: %v", err) }
}

// noDispatch is upstream's noDispatch: dispatching fails the test, then
// runs the task inline.
func noDispatch(t *testing.T) Dispatcher {
	return DispatchFunc(func(task *Task) {
		t.Errorf("unexpected dispatch")
		task.Run()
	})
}

// opLog hands out operation indices, like upstream's MockService op
// counter.
type opLog struct {
	mu  sync.Mutex
	ops []string
}

func (l *opLog) add(name string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ops = append(l.ops, name)
	return len(l.ops) - 1
}

func (l *opLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.ops...)
}

// mockService records the op index of its hooks.
type mockService struct {
	log               *opLog
	name              string
	mu                sync.Mutex
	detachOp          int
	shutdownOp        int
	detaches          int
	shutdowns         int
	shutdownRequested bool
	// deferDone, if set, receives the done callbacks instead of them
	// being called inline.
	deferDone chan func()
}

func newMockService(log *opLog, name string) *mockService {
	return &mockService{log: log, name: name, detachOp: -1, shutdownOp: -1}
}

func (m *mockService) OnDetach(done func(), shutdownRequested bool) {
	op := m.log.add(m.name + ".detach")
	m.mu.Lock()
	m.detachOp, m.shutdownRequested = op, shutdownRequested
	m.detaches++
	m.mu.Unlock()
	m.finish(done)
}

func (m *mockService) OnShutdown(done func()) {
	op := m.log.add(m.name + ".shutdown")
	m.mu.Lock()
	m.shutdownOp = op
	m.shutdowns++
	m.mu.Unlock()
	m.finish(done)
}

func (m *mockService) finish(done func()) {
	if m.deferDone != nil {
		m.deferDone <- done
		return
	}
	done()
}

func (m *mockService) ops() (detach, shutdown int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.detachOp, m.shutdownOp
}

// waitDone fails the test if s does not finish shutting down promptly.
func waitDone(t *testing.T, s *Session) {
	t.Helper()
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("session did not shut down (state %v)", s.State())
	}
}

func isDone(s *Session) bool {
	select {
	case <-s.Done():
		return true
	default:
		return false
	}
}

// mockCA is upstream's MockControllerAccess: a pending-call table, a
// post hook deciding where controller results are delivered from, and a
// connect hook. Controller handlers are plain functions by tag.
type mockCA struct {
	onConnect func(m *mockCA, bi *BootstrapInfo) error
	post      func(func()) // how controller answers are delivered; nil = inline

	mu            sync.Mutex
	h             *SessionHandle
	bi            *BootstrapInfo
	closing       bool
	nextID        uint64
	pending       map[uint64]*PendingCall
	handlers      map[sps.Addr]func([]byte) WrapperResult
	results       map[uint64]WrapperResult
	disconnectErr error // what a local Disconnect reports
	disconnects   int
}

func newMockCA() *mockCA {
	return &mockCA{
		pending:  map[uint64]*PendingCall{},
		handlers: map[sps.Addr]func([]byte) WrapperResult{},
		results:  map[uint64]WrapperResult{},
	}
}

func (m *mockCA) Connect(h *SessionHandle, bi *BootstrapInfo) error {
	m.mu.Lock()
	m.h, m.bi = h, bi
	m.mu.Unlock()
	if m.onConnect != nil {
		return m.onConnect(m, bi)
	}
	return nil
}

func (m *mockCA) Disconnect() {
	m.mu.Lock()
	m.disconnects++
	err := m.disconnectErr
	m.mu.Unlock()
	m.hangup(err)
}

// hangup is the disconnect path, local or remote: drain, then notify.
func (m *mockCA) hangup(err error) {
	m.mu.Lock()
	if m.closing {
		m.mu.Unlock()
		return
	}
	m.closing = true
	pend := m.pending
	m.pending = map[uint64]*PendingCall{}
	h := m.h
	m.mu.Unlock()
	for id := range uint64(len(pend) + 64) {
		if c, ok := pend[id]; ok {
			h.FailPendingControllerCall(c)
		}
	}
	h.NotifyDisconnected(err)
}

func (m *mockCA) CallController(tag sps.Addr, args []byte, call *PendingCall) {
	m.mu.Lock()
	if m.closing {
		h := m.h
		m.mu.Unlock()
		h.FailControllerCallInline(call)
		return
	}
	id := m.nextID
	m.nextID++
	m.pending[id] = call
	f, ok := m.handlers[tag]
	m.mu.Unlock()
	if !ok {
		return // never answered
	}
	answer := func() { m.answer(id, f(args)) }
	if m.post != nil {
		m.post(answer)
	} else {
		answer()
	}
}

func (m *mockCA) answer(id uint64, r WrapperResult) {
	m.mu.Lock()
	c, ok := m.pending[id]
	delete(m.pending, id)
	h := m.h
	m.mu.Unlock()
	if ok {
		h.HandleControllerCallResult(c, r)
	}
}

func (m *mockCA) SendWrapperResult(callID uint64, r WrapperResult) {
	m.mu.Lock()
	m.results[callID] = r
	m.mu.Unlock()
}

// callWrapper plays the controller calling an executor wrapper.
func (m *mockCA) callWrapper(addr sps.Addr, args []byte, id uint64) {
	m.mu.Lock()
	h := m.h
	m.mu.Unlock()
	h.HandleWrapperCall(addr, args, id)
}

func (m *mockCA) result(id uint64) (WrapperResult, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.results[id]
	return r, ok
}

// deadCA is upstream's DeadControllerAccess: every call fails inline.
type deadCA struct{ h *SessionHandle }

func (d *deadCA) Connect(h *SessionHandle, _ *BootstrapInfo) error { d.h = h; return nil }
func (d *deadCA) Disconnect()                                      { d.h.NotifyDisconnected(nil) }
func (d *deadCA) CallController(_ sps.Addr, _ []byte, c *PendingCall) {
	d.h.FailControllerCallInline(c)
}
func (d *deadCA) SendWrapperResult(uint64, WrapperResult) {}

// Shared SPS signatures.
var (
	addSig    = sps.Func2[int32, int32, int32]{Arg1: sps.I32, Arg2: sps.I32, Ret: sps.I32}
	voidSig   = sps.Func0[struct{}]{Ret: sps.Empty}
	echoSig   = sps.Func1[string, string]{Arg1: sps.String, Ret: sps.String}
	errSig    = sps.Func1[bool, error]{Arg1: sps.Bool, Ret: sps.ErrorCodec}
	expectSig = sps.Func1[int32, sps.Expected[int32]]{Arg1: sps.I32, Ret: sps.ExpectedOf(sps.I32)}
)

func addHandler(_ *Session, a, b int32) int32 { return a + b }

// attachMock attaches a fresh mockCA to s.
func attachMock(t *testing.T, s *Session) *mockCA {
	t.Helper()
	ca := newMockCA()
	require.NoError(t, s.Attach(ca, nil))
	return ca
}

// oob asserts r is the out-of-band error msg.
func oobMsg(r WrapperResult) string {
	msg, ok := r.OutOfBandError()
	if !ok {
		return fmt.Sprintf("<not out-of-band: %d bytes>", r.Size())
	}
	return msg
}

var msgDeserializeArgs = dialect.Latest.DeserializeArgs
