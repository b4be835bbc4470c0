package target

import (
	"runtime/metrics"
	"sync/atomic"
)

var allocSample = []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}

// HeapAllocs returns the bytes the process has allocated on the heap so
// far (cumulative); the difference around an input is what it cost. A
// read costs about 0.6 µs.
func HeapAllocs() uint64 {
	metrics.Read(allocSample)
	return allocSample[0].Value.Uint64()
}

// AllocMark counts a body's heap allocation with one HeapAllocs per
// input instead of two: Since returns the bytes allocated since the last
// Since (the first time, since the process began), so the count is at
// least what the input allocated, and more by what the engine and other
// goroutines allocated meanwhile. A body that finds the count above its
// limit measures the input again, alone. Safe for concurrent use.
type AllocMark struct{ last atomic.Uint64 }

// Since returns the heap bytes allocated since the last call and marks now.
func (m *AllocMark) Since() uint64 {
	now := HeapAllocs()
	return now - m.last.Swap(now)
}
