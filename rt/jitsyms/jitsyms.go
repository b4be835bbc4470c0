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

// MaxNames bounds the distinct names a process keeps: names live for
// ever (a C reader may hold one), so a controller sending new ones without
// end would grow the process without end. Past it, a new name is not
// added.
const MaxNames = 1 << 18

// maxNames is MaxNames, lowered by the tests.
var maxNames = MaxNames

var table struct {
	mu    sync.Mutex
	syms  []Sym               // sorted by Start, disjoint
	names map[string]struct{} // every name ever added
}

// Add names [start, start+size); ranges it overlaps are dropped (code
// was reallocated there). A zero size or a wrapping range is ignored.
func Add(start, size uint64, name string) { AddAll([]Sym{{start, start + size, name}}) }

// AddAll is Add for several symbols, published once.
func AddAll(syms []Sym) {
	table.mu.Lock()
	defer table.mu.Unlock()
	changed := false
	for _, s := range syms {
		if s.End <= s.Start || !known(s.Name) {
			continue
		}
		table.syms = cut(table.syms, s.Start, s.End)
		i, _ := slices.BinarySearchFunc(table.syms, s.Start, func(e Sym, a uint64) int { return cmpU64(e.Start, a) })
		table.syms = slices.Insert(table.syms, i, s)
		changed = true
	}
	if changed {
		publish()
	}
}

// known reports whether name may be used, adding it to the names kept if
// the bound allows; table.mu held.
func known(name string) bool {
	if _, ok := table.names[name]; ok {
		return true
	}
	if len(table.names) >= maxNames {
		return false
	}
	if table.names == nil {
		table.names = map[string]struct{}{}
	}
	table.names[name] = struct{}{}
	return true
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
