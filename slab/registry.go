package slab

import (
	"slices"
	"sync"
	"sync/atomic"
)

// The registry of live slabs answers "is this address executable JIT'd
// memory?" for the whole process (native/codemap). Readers load an immutable
// snapshot; New and Close replace it under a mutex, Close before it
// unmaps the arena.
var registry struct {
	mu   sync.Mutex
	list atomic.Pointer[[]*Slab]
}

func register(s *Slab) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	var cur []*Slab
	if p := registry.list.Load(); p != nil {
		cur = *p
	}
	next := append(slices.Clip(cur), s)
	registry.list.Store(&next)
}

func unregister(s *Slab) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	p := registry.list.Load()
	if p == nil {
		return
	}
	next := slices.DeleteFunc(slices.Clone(*p), func(x *Slab) bool { return x == s })
	registry.list.Store(&next)
}

// ExecutableAt reports whether addr lies in the arena of a live slab
// (inArena) and, if so, [Slab.IsExecutable] of [addr, addr+n). No lock,
// no system call, no allocation; the answer is a snapshot.
func ExecutableAt(addr, n uintptr) (inArena, executable bool) {
	p := registry.list.Load()
	if p == nil {
		return false, false
	}
	for _, s := range *p {
		if addr-s.base < s.size {
			return true, s.IsExecutable(addr, n)
		}
	}
	return false, false
}

// liveSlabs counts slabs not yet closed, for leak checks in tests.
var liveSlabs atomic.Int64

// LiveSlabs returns the number of slabs created and not yet closed in this
// process (for leak checks in TestMain).
func LiveSlabs() int { return int(liveSlabs.Load()) }

// populateState remembers whether the kernel has MADV_POPULATE_WRITE:
// 0 unknown, 1 yes, 2 no (EINVAL seen once).
var populateState atomic.Int32

// PopulateSupported reports what Write learned about MADV_POPULATE_WRITE:
// known is false until the first populate was attempted.
func PopulateSupported() (supported, known bool) {
	switch populateState.Load() {
	case 1:
		return true, true
	case 2:
		return false, true
	}
	return false, false
}

// New reserves an arena and returns a Slab handing out memory from it.
