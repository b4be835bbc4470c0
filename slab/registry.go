package slab

import (
	"slices"
	"sync"
	"sync/atomic"
)

// The registry of live slabs answers "is this address executable JIT'd
// memory?" for the whole process (package rt/codemap asks it before
// every native call into JIT'd code), whoever created the slab: the
// memory manager's arenas, a Go JIT host's packers, a test's slab.
//
// Readers load an immutable snapshot (one atomic load, no lock, no system
// call); New and Close replace it under a mutex. A slab leaves the
// registry in Close before its arena is unmapped, so a lookup that starts
// after Close cannot attribute a reused address range to it.
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

// ExecutableAt reports whether addr lies in the arena of a live slab of
// this process (inArena) and, if so, whether every byte of [addr, addr+n)
// is in pages that slab handed out and that are currently executable
// (n == 0 counts as 1; see [Slab.IsExecutable]). For addresses inside an
// arena the slab's answer is authoritative. No lock, no system call, no
// allocation. The answer is a snapshot: a concurrent Protect, Release or
// Close may change it right after.
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
