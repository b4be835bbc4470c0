package rt

import (
	"sync"
	"sync/atomic"

	"github.com/orcgo/orcrt/rt/keepalive"
)

// Task is the Session's unit of work: an incoming wrapper call or the
// continuation of a controller call. It carries a keepalive token,
// released when it runs or is dropped, so a Dispatcher that does neither
// blocks shutdown. Exactly one of Run and Drop must be called, once (a
// second call panics); a dropped task's work is discarded for good.
type Task struct {
	fn    func()
	r     taskRunner // used when fn is nil: lets the Session embed a Task without a closure
	tok   keepalive.Token
	state atomic.Uint32 // 0 pending, 1 taken
}

// taskRunner: call records embedding their Task; runTask and dropTask may
// recycle it.
type taskRunner interface{ runTask() }

// taskDropper is implemented by records that must know when their Task
// is dropped.
type taskDropper interface{ dropTask() }

// NewTask returns a Task running fn that holds no token (for runners'
// own use and tests).
func NewTask(fn func()) *Task {
	if fn == nil {
		panic("rt: NewTask with a nil function")
	}
	return &Task{fn: fn}
}

func newTokenTask(fn func(), tok keepalive.Token) *Task { return &Task{fn: fn, tok: tok} }

func (t *Task) take(op string) {
	if !t.state.CompareAndSwap(0, 1) {
		panic("rt: Task." + op + " on a task that already ran or was dropped")
	}
}

// Run runs the task's function on the calling goroutine, then releases
// its token (also if the function panics).
func (t *Task) Run() {
	t.take("Run")
	// The token is released from a copy: runTask may recycle t.
	if tok := t.tok; tok.Valid() {
		defer tok.Release()
	}
	if t.fn != nil {
		t.fn()
		return
	}
	t.r.runTask()
}

// Drop discards the task without running it and releases its token.
func (t *Task) Drop() {
	t.take("Drop")
	tok := t.tok
	if d, ok := t.r.(taskDropper); ok && t.fn == nil {
		d.dropTask() // may recycle t
	}
	if tok.Valid() {
		tok.Release()
	}
}

// Dispatcher runs Tasks (upstream's DispatchFn): inline, queued or on
// another goroutine, but eventually Run or Drop every one. It must outlive
// the Sessions that use it.
type Dispatcher interface {
	Dispatch(t *Task)
}

// DispatchFunc adapts a function to a Dispatcher.
type DispatchFunc func(t *Task)

// Dispatch calls f(t).
func (f DispatchFunc) Dispatch(t *Task) { f(t) }

// InlineRunner runs each task on the dispatching goroutine; a wrapper
// waiting for a controller call's result deadlocks under it.
type InlineRunner struct{}

// Dispatch runs t immediately.
func (InlineRunner) Dispatch(t *Task) { t.Run() }

// GoRunner runs each task on its own goroutine, never in a bounded pool,
// so tasks blocked on the controller cannot starve the ones that would
// unblock them (docs/protocol.md §7.3). Finished goroutines park as idle
// workers (at most MaxIdle) for reuse. Dispatch after Close panics. Use
// [NewGoRunner].
type GoRunner struct {
	work    chan *Task // unbuffered: a send succeeds only into an idle worker
	maxIdle int32
	idle    atomic.Int32

	mu     sync.RWMutex // RLock: dispatching; Lock: closing
	closed bool
	wg     sync.WaitGroup // live worker goroutines
}

// NewGoRunner returns a runner keeping at most maxIdle idle workers
// (maxIdle <= 0 means 4).
func NewGoRunner(maxIdle int) *GoRunner {
	if maxIdle <= 0 {
		maxIdle = 4
	}
	return &GoRunner{work: make(chan *Task), maxIdle: int32(maxIdle)}
}

// Dispatch runs t on an idle worker or a new goroutine.
func (r *GoRunner) Dispatch(t *Task) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		panic("rt: GoRunner.Dispatch after Close")
	}
	select {
	case r.work <- t:
	default:
		r.wg.Add(1)
		go r.worker(t)
	}
}

func (r *GoRunner) worker(t *Task) {
	defer r.wg.Done()
	for {
		t.Run()
		if r.idle.Add(1) > r.maxIdle {
			r.idle.Add(-1)
			return
		}
		var ok bool
		t, ok = <-r.work
		r.idle.Add(-1)
		if !ok {
			return
		}
	}
}

// Close waits for all dispatched tasks to finish and stops the idle
// workers. It is idempotent.
func (r *GoRunner) Close() {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.work)
	}
	r.mu.Unlock()
	r.wg.Wait()
}

// QueueingRunner queues tasks for the owner to drain (thread-less hosts,
// deterministic tests). Safe for concurrent use; the zero value is ready.
type QueueingRunner struct {
	mu sync.Mutex
	q  []*Task
}

// NewQueueingRunner returns an empty queue.
func NewQueueingRunner() *QueueingRunner { return &QueueingRunner{} }

// Dispatch appends t to the queue.
func (r *QueueingRunner) Dispatch(t *Task) {
	r.mu.Lock()
	r.q = append(r.q, t)
	r.mu.Unlock()
}

// Len returns the number of queued tasks.
func (r *QueueingRunner) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.q)
}

func (r *QueueingRunner) pop(front bool) *Task {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.q)
	if n == 0 {
		return nil
	}
	var t *Task
	if front {
		t = r.q[0]
		r.q[0] = nil
		r.q = r.q[1:]
	} else {
		t = r.q[n-1]
		r.q[n-1] = nil
		r.q = r.q[:n-1]
	}
	if len(r.q) == 0 {
		r.q = nil // let the backing array go
	}
	return t
}

// RunFIFOUntilEmpty runs queued tasks oldest first on the calling
// goroutine until the queue is empty, including tasks queued meanwhile.
// It returns the number of tasks run.
func (r *QueueingRunner) RunFIFOUntilEmpty() int { return r.drain(true) }

// RunLIFOUntilEmpty runs queued tasks newest first until the queue is
// empty, including tasks queued meanwhile. It returns the number run.
func (r *QueueingRunner) RunLIFOUntilEmpty() int { return r.drain(false) }

// RunOne runs the oldest queued task, if any, and reports whether it did.
func (r *QueueingRunner) RunOne() bool {
	t := r.pop(true)
	if t == nil {
		return false
	}
	t.Run()
	return true
}

func (r *QueueingRunner) drain(fifo bool) int {
	n := 0
	for t := r.pop(fifo); t != nil; t = r.pop(fifo) {
		t.Run()
		n++
	}
	return n
}

// DropAll drops every queued task (releasing their tokens) and returns how
// many were dropped.
func (r *QueueingRunner) DropAll() int {
	n := 0
	for t := r.pop(true); t != nil; t = r.pop(true) {
		t.Drop()
		n++
	}
	return n
}
