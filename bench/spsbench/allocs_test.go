package spsbench

import (
	"testing"

	"github.com/orcgo/orcrt/sps"
)

// TestShapesDoNotAllocate pins the benchmarks' 0 allocs/op: encoding into a
// reused buffer and decoding with a reused Decoder into reused storage
// (zero-copy views) allocate nothing, for every shape.
func TestShapesDoNotAllocate(t *testing.T) {
	for _, s := range shapes() {
		buf := s.encode(make([]byte, 0, s.size))
		if len(buf) != s.size {
			t.Fatalf("%s: encoded %d bytes, size %d", s.name, len(buf), s.size)
		}
		in := append([]byte(nil), buf...)
		if n := testing.AllocsPerRun(50, func() { buf = s.encode(buf[:0]) }); n != 0 {
			t.Errorf("encode %s: %v allocs/op", s.name, n)
		}
		var d sps.Decoder
		ok := true
		if n := testing.AllocsPerRun(50, func() { ok = s.decode(&d, in) && ok }); n != 0 {
			t.Errorf("decode %s: %v allocs/op", s.name, n)
		}
		if !ok {
			t.Errorf("decode %s: %v", s.name, d.Err())
		}
	}
}
