package spsbench

import (
	"fmt"
	"testing"

	"github.com/orcgo/orcrt/sps"
)

func BenchmarkSPS(b *testing.B) {
	for _, op := range []string{"encode", "decode"} {
		for _, s := range shapes() {
			b.Run(fmt.Sprintf("op=%s/shape=%s", op, s.name), func(b *testing.B) {
				buf := s.encode(make([]byte, 0, s.size))
				b.ReportAllocs()
				b.SetBytes(int64(s.size))
				if op == "encode" {
					for b.Loop() {
						buf = s.encode(buf[:0])
					}
					if len(buf) != s.size {
						b.Fatalf("encoded %d bytes, want %d", len(buf), s.size)
					}
					return
				}
				in := buf
				var d sps.Decoder
				// Warm up the reused storage: steady state is what counts.
				if !s.decode(&d, in) {
					b.Fatal(d.Err())
				}
				for b.Loop() {
					if !s.decode(&d, in) {
						b.Fatal(d.Err())
					}
				}
			})
		}
	}
}

// BenchmarkCopy is the same-run floor for the memory-bound shapes: a plain
// copy() into a preallocated buffer. size=8x4KiB-wire is the floor of the
// finalize encoder specifically: only the eight copy() calls of its segment
// contents, to the same (unaligned) offsets they have on the wire.
func BenchmarkCopy(b *testing.B) {
	b.Run("size=8x4KiB-wire", func(b *testing.B) {
		fr := finalizeRequest()
		dst := make([]byte, fr.Size())
		b.ReportAllocs()
		b.SetBytes(int64(8 * 4096))
		for b.Loop() {
			off := 8
			for i := range fr.Segments {
				off += 25
				off += copy(dst[off:], fr.Segments[i].Content)
			}
		}
	})
	// The same eight 4 KiB copies to 32-byte-aligned offsets: what the
	// encoder would cost if the wire format let contents land aligned.
	b.Run("size=8x4KiB-aligned", func(b *testing.B) {
		fr := finalizeRequest()
		dst := make([]byte, 8*4096)
		b.ReportAllocs()
		b.SetBytes(int64(8 * 4096))
		for b.Loop() {
			off := 0
			for i := range fr.Segments {
				off += copy(dst[off:], fr.Segments[i].Content)
			}
		}
	})
	for _, size := range []struct {
		name string
		n    int
	}{{"32KiB", 32 << 10}, {"1MiB", 1 << 20}} {
		b.Run("size="+size.name, func(b *testing.B) {
			src := make([]byte, size.n)
			dst := make([]byte, size.n)
			b.ReportAllocs()
			b.SetBytes(int64(size.n))
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}
