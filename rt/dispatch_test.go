package rt

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ---- QueueingRunnerTest ----

func TestQueueingRunner_EnqueueDoesNotRunImmediately(t *testing.T) {
	q := NewQueueingRunner()
	ran := false
	q.Dispatch(NewTask(func() { ran = true }))
	assert.False(t, ran)
	assert.Equal(t, 1, q.Len())
	q.RunFIFOUntilEmpty()
	assert.True(t, ran)
}

func TestQueueingRunner_RunFIFOUntilEmpty(t *testing.T) {
	var q QueueingRunner // the zero value is ready
	var order []int
	for i := range 3 {
		q.Dispatch(NewTask(func() { order = append(order, i) }))
	}
	assert.Equal(t, 3, q.RunFIFOUntilEmpty())
	assert.Equal(t, []int{0, 1, 2}, order)
}

func TestQueueingRunner_RunLIFOUntilEmpty(t *testing.T) {
	q := NewQueueingRunner()
	var order []int
	for i := range 3 {
		q.Dispatch(NewTask(func() { order = append(order, i) }))
	}
	assert.Equal(t, 3, q.RunLIFOUntilEmpty())
	assert.Equal(t, []int{2, 1, 0}, order)
}

func TestQueueingRunner_DrainOnEmptyQueueIsNoOp(t *testing.T) {
	q := NewQueueingRunner()
	assert.Equal(t, 0, q.RunFIFOUntilEmpty())
	assert.Equal(t, 0, q.RunLIFOUntilEmpty())
	assert.False(t, q.RunOne())
}

func TestQueueingRunner_DrainPicksUpTasksEnqueuedDuringDrain(t *testing.T) {
	for _, fifo := range []bool{true, false} {
		q := NewQueueingRunner()
		var order []string
		q.Dispatch(NewTask(func() {
			order = append(order, "first")
			q.Dispatch(NewTask(func() { order = append(order, "second") }))
		}))
		if fifo {
			q.RunFIFOUntilEmpty()
		} else {
			q.RunLIFOUntilEmpty()
		}
		assert.Equal(t, []string{"first", "second"}, order)
	}
}

func TestQueueingRunner_ConcurrentProducerAndDrainer(t *testing.T) {
	q := NewQueueingRunner()
	const n = 1024
	var got []int
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range n {
			q.Dispatch(NewTask(func() { got = append(got, i) }))
		}
	})
	for len(got) < n {
		q.RunFIFOUntilEmpty()
		runtime.Gosched()
	}
	wg.Wait()
	for i := range n {
		require.Equal(t, i, got[i])
	}
}

func TestQueueingRunner_DropAllReleasesTokens(t *testing.T) {
	q := NewQueueingRunner()
	s := NewSession(mockProcessInfo(), q, noErrors(t))
	fn := s.RegisterWrapper(func(*Session, []byte, ReturnFunc) { t.Error("dropped task ran") })
	ca := attachMock(t, s)
	ca.callWrapper(fn, nil, 0)
	ca.callWrapper(fn, nil, 1)
	s.Shutdown(nil)
	assert.False(t, isDone(s), "queued tasks hold tokens")
	assert.Equal(t, 2, q.DropAll())
	assert.True(t, isDone(s), "dropping released them")
}

// ---- ThreadPoolRunnerTest (GoRunner) ----

func TestThreadPoolRunner_NoTasks(t *testing.T) {
	r := NewGoRunner(0)
	r.Close()
	r.Close() // idempotent
}

func TestThreadPoolRunner_BasicTaskExecution(t *testing.T) {
	r := NewGoRunner(1)
	done := make(chan struct{})
	r.Dispatch(NewTask(func() { close(done) }))
	<-done
	r.Close()
}

func TestThreadPoolRunner_SingleThreadMultipleTasks(t *testing.T) {
	r := NewGoRunner(1)
	var n atomic.Int32
	for range 10 {
		r.Dispatch(NewTask(func() { n.Add(1) }))
	}
	r.Close() // drains
	assert.EqualValues(t, 10, n.Load())
}

func TestThreadPoolRunner_ConcurrentTasks(t *testing.T) {
	r := NewGoRunner(2)
	a, b := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	r.Dispatch(NewTask(func() { close(a); <-b; wg.Done() }))
	r.Dispatch(NewTask(func() { <-a; close(b); wg.Done() }))
	wg.Wait()
	r.Close()
}

// Unbounded: far more mutually blocking tasks than maxIdle all run.
func TestGoRunner_DoesNotBoundConcurrency(t *testing.T) {
	r := NewGoRunner(1)
	const n = 200
	gate := make(chan struct{})
	var started sync.WaitGroup
	started.Add(n)
	for range n {
		r.Dispatch(NewTask(func() { started.Done(); <-gate }))
	}
	started.Wait() // every task is running at once
	close(gate)
	r.Close()
}

func TestGoRunner_ReusesIdleWorkers(t *testing.T) {
	r := NewGoRunner(4)
	defer r.Close()
	for range 200 {
		done := make(chan struct{})
		r.Dispatch(NewTask(func() { close(done) }))
		<-done
	}
	// Sequential dispatches never need more than a handful of goroutines.
	deadline := time.Now().Add(5 * time.Second)
	for r.idle.Load() == 0 && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	assert.LessOrEqual(t, r.idle.Load(), int32(4))
	assert.Positive(t, r.idle.Load(), "finished workers park for reuse")
}

func TestGoRunner_DispatchAfterClosePanics(t *testing.T) {
	r := NewGoRunner(1)
	r.Close()
	assert.PanicsWithValue(t, "rt: GoRunner.Dispatch after Close", func() { r.Dispatch(NewTask(func() {})) })
}

func TestGoRunner_Session(t *testing.T) {
	r := NewGoRunner(0)
	defer r.Close()
	s := NewSession(mockProcessInfo(), r, noErrors(t))
	fn := s.RegisterWrapper(Handle2(addSig, addHandler))
	l := NewLoopback(nil)
	require.NoError(t, s.Attach(l, nil))
	v, err := Await(func(done func(int32, error)) { Call2(l.Controller().Caller(fn), addSig, 20, 22, done) })
	require.NoError(t, err)
	assert.EqualValues(t, 42, v)
	s.Close()
}

// ---- Task ----

func TestTask_RunOrDropOnce(t *testing.T) {
	task := NewTask(func() {})
	task.Run()
	assert.Panics(t, task.Run)
	assert.Panics(t, task.Drop)
	d := NewTask(func() { t.Error("dropped task ran") })
	d.Drop()
	assert.Panics(t, d.Drop)
}

func TestTask_RunReleasesTokenEvenOnPanic(t *testing.T) {
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	tok, err := s.AcquireKeepalive()
	require.NoError(t, err)
	task := newTokenTask(func() { panic("task failed") }, tok)
	assert.Panics(t, task.Run)
	s.Shutdown(nil)
	assert.True(t, isDone(s), "the token was released by the panicking task")
}

func TestInlineRunner(t *testing.T) {
	ran := false
	InlineRunner{}.Dispatch(NewTask(func() { ran = true }))
	assert.True(t, ran)
}
