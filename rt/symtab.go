package rt

import (
	"fmt"
	"iter"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/orcgo/orcrt/sps"
)

// Symbol is one name -> executor address pair.
type Symbol struct {
	Name string
	Addr sps.Addr
}

// CName returns the linker-level spelling of a C symbol name: the name
// itself on ELF platforms, "_"+name on Darwin (upstream's
// SymbolNameSpec::c). Names passed to [SymbolTable] are used verbatim, so
// interface symbols should go through CName.
func CName(name string) string {
	if runtime.GOOS == "darwin" {
		return "_" + name
	}
	return name
}

// SymbolTable maps linker-level symbol names to executor addresses: the Go
// form of upstream's SimpleSymbolTable. It is safe for concurrent use.
// The zero value is an empty table ready to use.
type SymbolTable struct {
	mu  sync.Mutex
	m   map[string]sps.Addr
	gen uint64 // counts changes, for BootstrapInfo.SetupPayload's copy
}

// NewSymbolTable returns an empty table.
func NewSymbolTable() *SymbolTable { return &SymbolTable{} }

// SymbolConflict is one name that an AddUnique call would have rebound.
type SymbolConflict struct {
	Name     string
	Existing sps.Addr
	New      sps.Addr
}

// DuplicateSymbolError is returned by [SymbolTable.AddUnique] when names
// already bound to a different address were passed. It names every
// conflict; nothing from the batch was added.
type DuplicateSymbolError struct {
	Conflicts []SymbolConflict
}

func (e *DuplicateSymbolError) Error() string {
	var sb strings.Builder
	sb.WriteString("rt: duplicate symbol definitions: ")
	for i, c := range e.Conflicts {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "%q (existing %#x, new %#x)", c.Name, uint64(c.Existing), uint64(c.New))
	}
	return sb.String()
}

// AddUnique adds syms all-or-nothing. Re-adding a name with the address it
// already has is allowed; binding an existing name to a different address
// (or passing the same name twice with different addresses) fails with a
// *DuplicateSymbolError naming every conflict, and adds nothing.
func (t *SymbolTable) AddUnique(syms ...Symbol) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var conflicts []SymbolConflict
	batch := make(map[string]sps.Addr, len(syms))
	for _, s := range syms {
		old, ok := t.m[s.Name]
		if !ok {
			old, ok = batch[s.Name]
		}
		if ok && old != s.Addr {
			conflicts = append(conflicts, SymbolConflict{Name: s.Name, Existing: old, New: s.Addr})
			continue
		}
		batch[s.Name] = s.Addr
	}
	if conflicts != nil {
		return &DuplicateSymbolError{Conflicts: conflicts}
	}
	if t.m == nil {
		t.m = make(map[string]sps.Addr, len(batch))
	}
	maps.Copy(t.m, batch)
	t.gen++
	return nil
}

// generation changes whenever the table does.
func (t *SymbolTable) generation() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gen
}

// Add adds one symbol; see [SymbolTable.AddUnique].
func (t *SymbolTable) Add(name string, addr sps.Addr) error {
	return t.AddUnique(Symbol{Name: name, Addr: addr})
}

// Merge adds every symbol of o, all-or-nothing (upstream's
// addUnique(SimpleSymbolTable&&)).
func (t *SymbolTable) Merge(o *SymbolTable) error {
	return t.AddUnique(o.Symbols()...)
}

// Lookup returns the address bound to name.
func (t *SymbolTable) Lookup(name string) (sps.Addr, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	a, ok := t.m[name]
	return a, ok
}

// Count returns 1 if name is bound and 0 otherwise (upstream's count).
func (t *SymbolTable) Count(name string) int {
	if _, ok := t.Lookup(name); ok {
		return 1
	}
	return 0
}

// Len returns the number of symbols.
func (t *SymbolTable) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}

// Symbols returns a snapshot of the table sorted by name. The slice is the
// caller's.
func (t *SymbolTable) Symbols() []Symbol {
	t.mu.Lock()
	out := make([]Symbol, 0, len(t.m))
	for n, a := range t.m {
		out = append(out, Symbol{Name: n, Addr: a})
	}
	t.mu.Unlock()
	slices.SortFunc(out, func(a, b Symbol) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// All iterates over a snapshot of the table in name order.
func (t *SymbolTable) All() iter.Seq2[string, sps.Addr] {
	syms := t.Symbols()
	return func(yield func(string, sps.Addr) bool) {
		for _, s := range syms {
			if !yield(s.Name, s.Addr) {
				return
			}
		}
	}
}
