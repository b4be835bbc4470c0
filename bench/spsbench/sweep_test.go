package spsbench

import (
	"testing"

	"github.com/orcgo/orcrt/sps"
)

// sweepSizes are the message sizes of BenchmarkSweep.
var sweepSizes = []struct {
	name string
	n    int
}{{"16B", 16}, {"256B", 256}, {"4KiB", 4 << 10}, {"64KiB", 64 << 10}, {"1MiB", 1 << 20}}

// BenchmarkSweep is SPS throughput against message size for the
// byte-sequence shape (the shape that carries JIT'd content), beside a
// copy() of the same size measured in the same run: op=encode is
// AppendBytes into a reused buffer, op=decode the zero-copy Bytes view
// (its throughput grows with size: its cost does not), op=memmove the
// floor of encoding. `make bench-report` charts it.
func BenchmarkSweep(b *testing.B) {
	for _, sz := range sweepSizes {
		src := make([]byte, sz.n)
		for i := range src {
			src[i] = byte(i)
		}
		wire := sps.AppendBytes(nil, src)
		b.Run("op=encode/size="+sz.name, func(b *testing.B) {
			buf := make([]byte, 0, len(wire))
			b.ReportAllocs()
			b.SetBytes(int64(sz.n))
			for b.Loop() {
				buf = sps.AppendBytes(buf[:0], src)
			}
		})
		b.Run("op=decode/size="+sz.name, func(b *testing.B) {
			var d sps.Decoder
			b.ReportAllocs()
			b.SetBytes(int64(sz.n))
			for b.Loop() {
				d.Reset(wire)
				sinkB = d.Bytes()
				if d.Failed() {
					b.Fatal(d.Err())
				}
			}
		})
		b.Run("op=memmove/size="+sz.name, func(b *testing.B) {
			dst := make([]byte, sz.n)
			b.ReportAllocs()
			b.SetBytes(int64(sz.n))
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}
