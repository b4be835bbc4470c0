package sps

import (
	"encoding/binary"
	"slices"
	"unsafe"
)

// FixedInt is the set of element types with a fixed-size SPS encoding that
// the bulk sequence helpers ([AppendInts], [DecodeInts]) handle: the SPS
// integer types, char (byte) and SPSExecutorAddr.
type FixedInt interface {
	~uint8 | ~int8 | ~uint16 | ~int16 | ~uint32 | ~int32 | ~uint64 | ~int64
}

// sizeOf is the encoded (and in-memory) size of one T.
func sizeOf[T FixedInt]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

// SizeInts is the encoded size of an SPSSequence of n elements of T.
func SizeInts[T FixedInt](n int) int { return 8 + n*sizeOf[T]() }

// AppendInts appends an SPSSequence<T> (u64 count, then each element
// little-endian) to b. On little-endian hosts it is one memmove; see
// bulk_le.go. It allocates only when b lacks capacity.
func AppendInts[T FixedInt](b []byte, v []T) []byte {
	b = AppendU64(b, uint64(len(v)))
	return appendIntsRaw(b, v)
}

// DecodeInts reads an SPSSequence<T> and appends its elements to dst,
// like append, allocating only when dst lacks capacity. On failure it
// records the error in d and returns dst unchanged.
func DecodeInts[T FixedInt](d *Decoder, dst []T) []T {
	sz := sizeOf[T]()
	n := d.Count(sz, "sequence length")
	if d.err != nil {
		return dst
	}
	src := d.buf[d.off : d.off+n*sz]
	d.off += n * sz
	dst = slices.Grow(dst, n)
	return decodeIntsRaw(dst, src, n)
}

// appendIntsGeneric is the portable encoder, used on big-endian hosts and
// with the purego build tag; tests compare it with the fast path.
func appendIntsGeneric[T FixedInt](b []byte, v []T) []byte {
	switch sizeOf[T]() {
	case 1:
		for _, x := range v {
			b = append(b, byte(x))
		}
	case 2:
		for _, x := range v {
			b = binary.LittleEndian.AppendUint16(b, uint16(x))
		}
	case 4:
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, uint32(x))
		}
	default:
		for _, x := range v {
			b = binary.LittleEndian.AppendUint64(b, uint64(x))
		}
	}
	return b
}

// decodeIntsGeneric appends the n little-endian elements in src to dst
// (which has capacity for them).
func decodeIntsGeneric[T FixedInt](dst []T, src []byte, n int) []T {
	switch sizeOf[T]() {
	case 1:
		for i := range n {
			dst = append(dst, T(src[i]))
		}
	case 2:
		for i := range n {
			dst = append(dst, T(binary.LittleEndian.Uint16(src[2*i:])))
		}
	case 4:
		for i := range n {
			dst = append(dst, T(binary.LittleEndian.Uint32(src[4*i:])))
		}
	default:
		for i := range n {
			dst = append(dst, T(binary.LittleEndian.Uint64(src[8*i:])))
		}
	}
	return dst
}

// AppendU16s appends an SPSSequence<uint16_t>.
func AppendU16s(b []byte, v []uint16) []byte { return AppendInts(b, v) }

// AppendU32s appends an SPSSequence<uint32_t>.
func AppendU32s(b []byte, v []uint32) []byte { return AppendInts(b, v) }

// AppendU64s appends an SPSSequence<uint64_t>.
func AppendU64s(b []byte, v []uint64) []byte { return AppendInts(b, v) }

// AppendAddrs appends an SPSSequence<SPSExecutorAddr>.
func AppendAddrs(b []byte, v []Addr) []byte { return AppendInts(b, v) }

// U8s reads an SPSSequence<uint8_t> into dst like [DecodeInts] (a copy; use
// [Decoder.Bytes] for a view).
func (d *Decoder) U8s(dst []uint8) []uint8 { return DecodeInts(d, dst) }

// U16s reads an SPSSequence<uint16_t> into dst like [DecodeInts].
func (d *Decoder) U16s(dst []uint16) []uint16 { return DecodeInts(d, dst) }

// U32s reads an SPSSequence<uint32_t> into dst like [DecodeInts].
func (d *Decoder) U32s(dst []uint32) []uint32 { return DecodeInts(d, dst) }

// U64s reads an SPSSequence<uint64_t> into dst like [DecodeInts].
func (d *Decoder) U64s(dst []uint64) []uint64 { return DecodeInts(d, dst) }

// Addrs reads an SPSSequence<SPSExecutorAddr> into dst like [DecodeInts].
func (d *Decoder) Addrs(dst []Addr) []Addr { return DecodeInts(d, dst) }
