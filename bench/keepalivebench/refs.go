package keepalivebench

import (
	"sync"
	"sync/atomic"

	"github.com/orcgo/orcrt/rt/keepalive"
)

// MutexGroup is a Go port of upstream orc-rt's TaskGroup
// (include/orc-rt/bedrock/TaskGroup.h): every acquire and release takes
// the group mutex. Reference only.
type MutexGroup struct {
	mu       sync.Mutex
	closed   bool
	numTasks int
	onDone   []func()
}

// Acquire is acquireToken: false once closed.
func (g *MutexGroup) Acquire() bool {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return false
	}
	g.numTasks++
	g.mu.Unlock()
	return true
}

// Release is releaseToken: the last release after close runs the
// callbacks outside the lock.
func (g *MutexGroup) Release() {
	g.mu.Lock()
	if g.numTasks == 0 {
		g.mu.Unlock()
		panic("keepalivebench: release without acquire")
	}
	g.numTasks--
	var run []func()
	if g.numTasks == 0 && g.closed {
		run, g.onDone = g.onDone, nil
	}
	g.mu.Unlock()
	for _, f := range run {
		f()
	}
}

// Close is close(): idempotent, runs the callbacks if nothing is held.
func (g *MutexGroup) Close() {
	g.mu.Lock()
	g.closed = true
	var run []func()
	if g.numTasks == 0 {
		run, g.onDone = g.onDone, nil
	}
	g.mu.Unlock()
	for _, f := range run {
		f()
	}
}

// AddOnComplete is addOnComplete().
func (g *MutexGroup) AddOnComplete(f func()) {
	g.mu.Lock()
	if !g.closed || g.numTasks > 0 {
		g.onDone = append(g.onDone, f)
		g.mu.Unlock()
		return
	}
	g.mu.Unlock()
	f()
}

// AtomicPair is one shared word: acquire adds one, release subtracts one.
type AtomicPair struct{ n atomic.Int64 }

// Acquire adds one.
func (p *AtomicPair) Acquire() { p.n.Add(1) }

// Release subtracts one.
func (p *AtomicPair) Release() { p.n.Add(-1) }

// Count returns the current count.
func (p *AtomicPair) Count() int64 { return p.n.Load() }

type slot struct {
	n atomic.Int64
	_ [120]byte
}

// ShardedFloor is padded per-stripe counters with orcrt's stripe selection
// ([keepalive.StripeHint]) and no close protocol.
type ShardedFloor struct {
	slots []slot
	mask  uint32
}

// NewShardedFloor returns n (a power of two) stripes.
func NewShardedFloor(n int) *ShardedFloor {
	return &ShardedFloor{slots: make([]slot, n), mask: uint32(n - 1)}
}

// Acquire increments the caller's stripe and returns its index.
func (f *ShardedFloor) Acquire() uint32 {
	i := keepalive.StripeHint() & f.mask
	f.slots[i].n.Add(1)
	return i
}

// Release decrements stripe i.
func (f *ShardedFloor) Release(i uint32) { f.slots[i].n.Add(-1) }

// Count sums the stripes (not linearizable).
func (f *ShardedFloor) Count() int64 {
	var n int64
	for i := range f.slots {
		n += f.slots[i].n.Load()
	}
	return n
}
