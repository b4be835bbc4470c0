package jitsyms

import (
	"slices"
	"sync"
)

// Sym is one named range of JIT'd code.
type Sym struct {
	Start, End uint64 // [Start, End)
	Name       string
}

var table struct {
	mu   sync.Mutex
	syms []Sym // sorted by Start, disjoint
}

// Add names [start, start+size); ranges it overlaps are dropped (code
// was reallocated there). A zero size or a wrapping range is ignored.
func Add(start, size uint64, name string) {
	if size == 0 || start+size < start {
		return
	}
	table.mu.Lock()
	defer table.mu.Unlock()
	table.syms = cut(table.syms, start, start+size)
	i, _ := slices.BinarySearchFunc(table.syms, start, func(s Sym, a uint64) int { return cmpU64(s.Start, a) })
	table.syms = slices.Insert(table.syms, i, Sym{start, start + size, name})
	publish()
}

// RemoveRange drops every name overlapping [start, end).
func RemoveRange(start, end uint64) {
	table.mu.Lock()
	defer table.mu.Unlock()
	n := len(table.syms)
	table.syms = cut(table.syms, start, end)
	if len(table.syms) != n {
		publish()
	}
}

// Lookup returns the JIT'd function holding addr, as C readers see it.
func Lookup(addr uint64) (Sym, bool) {
	table.mu.Lock()
	defer table.mu.Unlock()
	i, _ := slices.BinarySearchFunc(table.syms, addr+1, func(s Sym, a uint64) int { return cmpU64(s.Start, a) })
	if i > 0 && addr < table.syms[i-1].End {
		return table.syms[i-1], true
	}
	return Sym{}, false
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cut removes the entries overlapping [start, end).
func cut(syms []Sym, start, end uint64) []Sym {
	return slices.DeleteFunc(syms, func(s Sym) bool { return s.Start < end && start < s.End })
}
