package sps

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"sync"
)

// DecodeError reports where and why decoding stopped.
type DecodeError struct {
	Off    int    // byte offset into the input where the failing item starts
	What   string // what was being decoded, e.g. "u64" or "sequence length"
	Reason string // why it failed, e.g. "need 8 bytes, have 3"
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("sps: decoding %s at offset %d: %s", e.What, e.Off, e.Reason)
}

// Decoder reads SPS values from a byte slice. It is a small value
// ([NewDecoder], [Decoder.Reset]; neither allocates). Errors are sticky:
// after the first, reads return zero values, the offset stays, and
// [Decoder.Err] reports it. Nothing panics; no allocation is sized from an
// unchecked length. [Decoder.Bytes] views alias the input. Not safe for
// concurrent use.
type Decoder struct {
	buf []byte
	off int
	// err is nil, errPending (pend* recorded, keeping readers inlinable;
	// Err builds the DecodeError), or the first error.
	err      *DecodeError
	pendWhat string
	pendN    uint64 // bytes needed (short read) or the count read (count)
	pendElem int    // minimum element size (count)
	pendKind uint8
}

const (
	pendShort = iota // a fixed-size read ran out of input
	pendCount        // a sequence count does not fit the remaining input
)

// errPending marks a recorded but not yet built error.
var errPending = &DecodeError{What: "pending"}

// NewDecoder returns a Decoder reading b from its start.
func NewDecoder(b []byte) Decoder { return Decoder{buf: b} }

// Reset makes d read b from its start and clears any error.
func (d *Decoder) Reset(b []byte) { *d = Decoder{buf: b} }

// Err returns the first decoding error, or nil. The concrete type is
// *[DecodeError]; repeated calls return the same value.
func (d *Decoder) Err() error {
	if d.err == nil {
		return nil
	}
	if d.err == errPending {
		d.err = d.buildPending()
	}
	return d.err
}

func (d *Decoder) buildPending() *DecodeError {
	rem := len(d.buf) - d.off
	if d.pendKind == pendCount {
		rem -= 8 // the count itself was there
		if d.pendElem == 1 {
			return &DecodeError{Off: d.off, What: d.pendWhat,
				Reason: fmt.Sprintf("length %d exceeds the %d bytes remaining", d.pendN, rem)}
		}
		return &DecodeError{Off: d.off, What: d.pendWhat,
			Reason: fmt.Sprintf("length %d needs at least %d bytes per element, %d bytes remain", d.pendN, d.pendElem, rem)}
	}
	return &DecodeError{Off: d.off, What: d.pendWhat,
		Reason: fmt.Sprintf("need %d bytes, have %d", d.pendN, rem)}
}

// Failed reports whether a decoding error has occurred.
func (d *Decoder) Failed() bool { return d.err != nil }

// Offset returns the number of bytes consumed so far.
func (d *Decoder) Offset() int { return d.off }

// Remaining returns the number of unread bytes.
func (d *Decoder) Remaining() int { return len(d.buf) - d.off }

// Rest returns the unread bytes without consuming them (a view).
func (d *Decoder) Rest() []byte { return d.buf[d.off:len(d.buf):len(d.buf)] }

// Format implements [fmt.Formatter]: printing a *Decoder shows its
// position instead of calling (consuming) [Decoder.String].
func (d *Decoder) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "sps.Decoder{off: %d, len: %d, failed: %t}", d.off, len(d.buf), d.err != nil)
}

// Fail records a decoding failure at the current offset, unless one is
// already recorded. Codecs for composite types use it to reject values that
// are well-formed bytes but invalid (for example a duplicate map key).
func (d *Decoder) Fail(what, reason string) {
	d.failAt(d.off, what, reason)
}

// FailAt is [Decoder.Fail] at an explicit offset, typically one saved with
// [Decoder.Offset] before the rejected item was read.
func (d *Decoder) FailAt(off int, what, reason string) {
	d.failAt(off, what, reason)
}

func (d *Decoder) failAt(off int, what, reason string) {
	if d.err == nil {
		d.err = &DecodeError{Off: off, What: what, Reason: reason}
	}
}

// short records that a read of n bytes for what ran out of input (the
// caller has checked d.err == nil).
func (d *Decoder) short(n int, what string) {
	d.err = errPending
	d.pendKind = pendShort
	d.pendWhat = what
	d.pendN = uint64(n)
}

// take consumes n bytes, or records an error and returns nil.
func (d *Decoder) take(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.buf)-d.off {
		d.short(n, what)
		return nil
	}
	b := d.buf[d.off : d.off+n : d.off+n]
	d.off += n
	return b
}

// Bool reads an SPS bool. Any non-zero byte is true (LLVM memcpys the byte
// into a C++ bool; 0 and 1 are the only values its encoder writes).
func (d *Decoder) Bool() bool {
	if d.err == nil {
		if d.off < len(d.buf) {
			v := d.buf[d.off] != 0
			d.off++
			return v
		}
		d.short(1, "bool")
	}
	return false
}

// U8 reads a uint8 (also SPS char and int8 via conversion).
func (d *Decoder) U8() uint8 {
	if d.err == nil {
		if d.off < len(d.buf) {
			v := d.buf[d.off]
			d.off++
			return v
		}
		d.short(1, "u8")
	}
	return 0
}

// U16 reads a little-endian uint16.
func (d *Decoder) U16() uint16 {
	if d.err == nil {
		if len(d.buf)-d.off >= 2 {
			v := binary.LittleEndian.Uint16(d.buf[d.off:])
			d.off += 2
			return v
		}
		d.short(2, "u16")
	}
	return 0
}

// U32 reads a little-endian uint32.
func (d *Decoder) U32() uint32 {
	if d.err == nil {
		if len(d.buf)-d.off >= 4 {
			v := binary.LittleEndian.Uint32(d.buf[d.off:])
			d.off += 4
			return v
		}
		d.short(4, "u32")
	}
	return 0
}

// U64 reads a little-endian uint64.
func (d *Decoder) U64() uint64 {
	if d.err == nil {
		if len(d.buf)-d.off >= 8 {
			v := binary.LittleEndian.Uint64(d.buf[d.off:])
			d.off += 8
			return v
		}
		d.short(8, "u64")
	}
	return 0
}

// I8 reads an int8.
func (d *Decoder) I8() int8 { return int8(d.U8()) }

// I16 reads a little-endian int16.
func (d *Decoder) I16() int16 { return int16(d.U16()) }

// I32 reads a little-endian int32.
func (d *Decoder) I32() int32 { return int32(d.U32()) }

// I64 reads a little-endian int64.
func (d *Decoder) I64() int64 { return int64(d.U64()) }

// Addr reads an SPSExecutorAddr.
func (d *Decoder) Addr() Addr { return Addr(d.U64()) }

// Size reads a size_t (a u64 on the wire), failing when it does not fit
// a uintptr. Callers converting to int check [math.MaxInt] themselves.
func (d *Decoder) Size() uint64 {
	off := d.off
	v := d.U64()
	if uint64(math.MaxUint) < math.MaxUint64 && v > uint64(math.MaxUint) {
		d.failAt(off, "size", fmt.Sprintf("value %#x exceeds the host size_t range", v))
		return 0
	}
	return v
}

// Count reads a sequence length and checks it against the remaining
// input, each element needing at least max(minElemSize, 1) bytes; it
// returns 0 after recording an error otherwise. The result may size an
// allocation: it is at most Remaining()/minElemSize.
func (d *Decoder) Count(minElemSize int, what string) int {
	if d.err != nil {
		return 0
	}
	if len(d.buf)-d.off < 8 {
		d.short(8, "u64")
		return 0
	}
	n := binary.LittleEndian.Uint64(d.buf[d.off:])
	// n*size <= rem, computed without overflow.
	hi, lo := bits.Mul64(n, uint64(max(minElemSize, 1)))
	if hi != 0 || lo > uint64(len(d.buf)-d.off-8) {
		d.badCount(n, minElemSize, what)
		return 0
	}
	d.off += 8
	return int(n)
}

func (d *Decoder) badCount(n uint64, minElemSize int, what string) {
	d.err = errPending
	d.pendKind = pendCount
	d.pendWhat = what
	d.pendN = n
	d.pendElem = max(minElemSize, 1)
}

// Bytes reads an SPSSequence<char> and returns a view of its bytes that
// aliases the input (capacity clamped to its length, so appending to the
// view never writes into the input). It does not allocate.
func (d *Decoder) Bytes() []byte {
	if d.err != nil {
		return nil
	}
	rem := len(d.buf) - d.off - 8
	if rem < 0 {
		d.short(8, "u64")
		return nil
	}
	n := binary.LittleEndian.Uint64(d.buf[d.off:])
	if n > uint64(rem) {
		d.badCount(n, 1, "byte sequence length")
		return nil
	}
	s := d.off + 8
	e := s + int(n)
	d.off = e
	return d.buf[s:e:e]
}

// BytesCopy reads an SPSSequence<char> into a newly allocated slice (nil
// for an empty sequence).
func (d *Decoder) BytesCopy() []byte {
	b := d.Bytes()
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}

// String reads an SPSString and returns a copy.
func (d *Decoder) String() string { return string(d.Bytes()) }

// Raw consumes exactly n bytes and returns a view of them.
func (d *Decoder) Raw(n int, what string) []byte {
	if n < 0 {
		d.Fail(what, "negative length")
		return nil
	}
	return d.take(n, what)
}

// decoderPool recycles Decoders for [Unmarshal] and FuncN's decoders (a
// Decoder passed through the Codec interface escapes).
var decoderPool = sync.Pool{New: func() any { return new(Decoder) }}

func getDecoder(b []byte) *Decoder {
	d := decoderPool.Get().(*Decoder)
	d.Reset(b)
	return d
}

// putDecoder returns d to the pool. The error (a separate object) may
// still be referenced by the caller; the input is dropped.
func putDecoder(d *Decoder) {
	*d = Decoder{}
	decoderPool.Put(d)
}
