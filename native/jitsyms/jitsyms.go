package jitsyms

import (
	"cmp"
	"slices"
	"sync"
)

// Sym is one named range of JIT'd code.
type Sym struct {
	Start, End uint64 // [Start, End)
	Name       string
	Module     string // the module the code belongs to ("": not known)
}

// MaxNames bounds the distinct names, of functions and modules, a
// process keeps: names live for ever (a C reader may hold one), so a
// controller sending new ones without end would grow the process without
// end. Past it, a symbol of a new function name is not added, and one of
// a new module name is added without it.
const MaxNames = 1 << 18

// maxNames is MaxNames, lowered by the tests.
var maxNames = MaxNames

var table struct {
	mu    sync.Mutex
	syms  []Sym               // sorted by Start, disjoint
	names map[string]struct{} // every name ever added
}

// AddAll names each symbol's [Start, End); ranges a symbol overlaps are
// dropped (code was reallocated there), an empty or wrapping range is
// ignored. The symbols are published once: one sort and one pass over
// the table, however many symbols (a link graph's functions arrive
// together). Of new symbols that overlap one another, the one starting
// first is kept.
func AddAll(syms []Sym) {
	table.mu.Lock()
	defer table.mu.Unlock()
	var add []Sym
	for _, s := range syms {
		if s.End > s.Start && known(s.Name) {
			if s.Module != "" && !known(s.Module) {
				s.Module = ""
			}
			add = append(add, s)
		}
	}
	if len(add) == 0 {
		return
	}
	slices.SortFunc(add, byStart)
	add = slices.CompactFunc(add, func(next, prev Sym) bool { return next.Start < prev.End })
	// add is sorted and disjoint, so its ends are sorted too: the first
	// new symbol ending after s.Start is the only one s can overlap.
	table.syms = slices.DeleteFunc(table.syms, func(s Sym) bool {
		i, _ := slices.BinarySearchFunc(add, s.Start, func(e Sym, a uint64) int { return cmp.Compare(e.End, a+1) })
		return i < len(add) && add[i].Start < s.End
	})
	table.syms = append(table.syms, add...)
	slices.SortFunc(table.syms, byStart)
	publish()
}

func byStart(a, b Sym) int { return cmp.Compare(a.Start, b.Start) }

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
	i, _ := slices.BinarySearchFunc(table.syms, addr+1, func(s Sym, a uint64) int { return cmp.Compare(s.Start, a) })
	if i > 0 && addr < table.syms[i-1].End {
		return table.syms[i-1], true
	}
	return Sym{}, false
}

// cut removes the entries overlapping [start, end).
func cut(syms []Sym, start, end uint64) []Sym {
	return slices.DeleteFunc(syms, func(s Sym) bool { return s.Start < end && start < s.End })
}
