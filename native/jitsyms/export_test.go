//go:build cgo

package jitsyms

// Find is the C reader (orcrt_jitsyms_find), for the tests.
var Find = find

// Describe is orcrt_jitsyms_describe of a signal taken at pc.
var Describe = describe

// SetMaxNames lowers the name bound for a test and returns the old one.
func SetMaxNames(n int) int {
	table.mu.Lock()
	defer table.mu.Unlock()
	old := maxNames
	maxNames = n
	return old
}

// NameCount is how many distinct names are kept.
func NameCount() int {
	table.mu.Lock()
	defer table.mu.Unlock()
	return len(table.names)
}

// Add names [start, start+size), as AddAll does for one symbol.
func Add(start, size uint64, name string) {
	AddAll([]Sym{{Start: start, End: start + size, Name: name}})
}
