// Package slabfuzz holds FuzzSlabOps, which runs random sequences of
// slab operations (regions and packed blocks, single- and dual-mapped)
// against the fuzzer's own page-state model and the kernel's view in
// /proc/self/maps, checking for overlap, alignment, lost content, and any
// page that is writable and executable at once. The package has no API.
//
//	go test -run '^$' -fuzz '^FuzzSlabOps$' -fuzztime 60s ./fuzz/slabfuzz
package slabfuzz
