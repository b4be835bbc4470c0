package spsbench

import (
	"github.com/orcgo/orcrt/sps"
)

// tupleCodec is the "tuple" shape: (u64, 32-byte string, bool), with the
// string decoded as a zero-copy view.
var tupleCodec = sps.Tuple3(sps.U64, sps.BytesView, sps.Bool)

// finalizeRequest is the "finalize" shape: 8 segments of 4 KiB content and
// 4 action pairs with 16-byte arguments. llvmbench.cpp builds the same
// request (TestLLVMBenchMessageMatches checks the bytes).
func finalizeRequest() sps.FinalizeRequest {
	var fr sps.FinalizeRequest
	groups := []sps.AllocGroup{1, 3, 5, 1, 3, 5, 1, 3}
	for i := range 8 {
		c := make([]byte, 4096)
		for j := range c {
			c[j] = byte(i*31 + j)
		}
		fr.Segments = append(fr.Segments, sps.SegFinalizeRequest{
			Group: groups[i], Addr: sps.Addr(0x7f0000000000 + i*0x1000), Size: 0x1000, Content: c})
	}
	for i := range 4 {
		args := make([]byte, 16)
		for j := range args {
			args[j] = byte(i + j)
		}
		fr.Actions = append(fr.Actions, sps.ActionPair{
			Finalize: sps.WrapperCall{Fn: sps.Addr(0x55000000a000 + i*0x40), Args: args},
			Dealloc:  sps.WrapperCall{Fn: sps.Addr(0x55000000b000 + i*0x40), Args: args},
		})
	}
	return fr
}

// Sinks keep decoded values observable.
var (
	sinkU64 uint64
	sinkB   []byte
)

// shape is one benchmark message: encode appends it to a reused buffer,
// decode reads it with a reused Decoder into reused storage. Both report
// the encoded size for SetBytes and fail on a decode error.
type shape struct {
	name   string
	size   int
	encode func(buf []byte) []byte
	decode func(d *sps.Decoder, in []byte) bool
}

func shapes() []shape {
	var (
		u64    = uint64(0x0123456789abcdef)
		tv     = sps.Triple[uint64, []byte, bool]{First: 42, Second: make([]byte, 32), Third: true}
		seq    = make([]uint32, 1000)
		b16    = make([]byte, 16)
		b1M    = make([]byte, 1<<20)
		fr     = finalizeRequest()
		seqOut = make([]uint32, 0, 1000)
		frOut  sps.FinalizeRequest
	)
	for i := range seq {
		seq[i] = uint32(i) * 2654435761
	}
	return []shape{
		{"u64", 8,
			func(b []byte) []byte { return sps.AppendU64(b, u64) },
			func(d *sps.Decoder, in []byte) bool { d.Reset(in); sinkU64 = d.U64(); return !d.Failed() }},
		{"tuple", tupleCodec.Size(tv),
			func(b []byte) []byte { return tupleCodec.Append(b, tv) },
			func(d *sps.Decoder, in []byte) bool {
				d.Reset(in)
				sinkB = tupleCodec.Decode(d).Second
				return !d.Failed()
			}},
		{"seq1000u32", sps.SizeInts[uint32](len(seq)),
			func(b []byte) []byte { return sps.AppendU32s(b, seq) },
			func(d *sps.Decoder, in []byte) bool { d.Reset(in); seqOut = d.U32s(seqOut[:0]); return !d.Failed() }},
		{"bytes16", sps.SizeBytes(len(b16)),
			func(b []byte) []byte { return sps.AppendBytes(b, b16) },
			func(d *sps.Decoder, in []byte) bool { d.Reset(in); sinkB = d.Bytes(); return !d.Failed() }},
		{"bytes1MiB", sps.SizeBytes(len(b1M)),
			func(b []byte) []byte { return sps.AppendBytes(b, b1M) },
			func(d *sps.Decoder, in []byte) bool { d.Reset(in); sinkB = d.Bytes(); return !d.Failed() }},
		{"finalize", fr.Size(),
			func(b []byte) []byte { return fr.Append(b) },
			func(d *sps.Decoder, in []byte) bool { d.Reset(in); frOut.Decode(d); return !d.Failed() }},
	}
}
