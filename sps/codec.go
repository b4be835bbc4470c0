package sps

import (
	"fmt"
	"slices"
	"strconv"
)

// Codec encodes and decodes one Go type as one SPS type; codecs are
// stateless and safe for concurrent use. Decode never panics: on bad input
// it records the failure in d (check it) and returns a zero or partial
// value; it must not retain d. Whether a result aliases the input is each
// codec's contract ([BytesView] does, [String] does not).
type Codec[T any] interface {
	// Size returns the exact encoded size of v.
	Size(v T) int
	// Append appends the encoding of v to b.
	Append(b []byte, v T) []byte
	// Decode reads one value.
	Decode(d *Decoder) T
	// MinSize is the smallest possible encoding, used to bound sequence
	// lengths before anything is allocated.
	MinSize() int
}

// Predefined codecs for SPS scalar and string types.
var (
	Bool      Codec[bool]   = boolCodec{}
	Char      Codec[byte]   = u8Codec{}
	U8        Codec[uint8]  = u8Codec{}
	U16       Codec[uint16] = u16Codec{}
	U32       Codec[uint32] = u32Codec{}
	U64       Codec[uint64] = u64Codec{}
	I8        Codec[int8]   = i8Codec{}
	I16       Codec[int16]  = i16Codec{}
	I32       Codec[int32]  = i32Codec{}
	I64       Codec[int64]  = i64Codec{}
	Size      Codec[uint64] = sizeCodec{}
	AddrCodec Codec[Addr]   = addrCodec{}
	// String is SPSString decoded into a copied Go string.
	String Codec[string] = stringCodec{}
	// BytesView is SPSSequence<char> decoded as a view aliasing the input.
	BytesView Codec[[]byte] = bytesCodec{copy: false}
	// BytesCopy is SPSSequence<char> decoded into a fresh slice.
	BytesCopy Codec[[]byte] = bytesCodec{copy: true}
	// Empty is SPSEmpty: zero bytes on the wire.
	Empty Codec[struct{}] = emptyCodec{}
	// ErrorCodec is SPSError: nil encodes as 00, a non-nil error as 01 and
	// its message. Decoded errors are *[RemoteError].
	ErrorCodec Codec[error] = errorCodec{}
)

type boolCodec struct{}

func (boolCodec) Size(bool) int                  { return 1 }
func (boolCodec) Append(b []byte, v bool) []byte { return AppendBool(b, v) }
func (boolCodec) Decode(d *Decoder) bool         { return d.Bool() }
func (boolCodec) MinSize() int                   { return 1 }

type u8Codec struct{}

func (u8Codec) Size(uint8) int                  { return 1 }
func (u8Codec) Append(b []byte, v uint8) []byte { return append(b, v) }
func (u8Codec) Decode(d *Decoder) uint8         { return d.U8() }
func (u8Codec) MinSize() int                    { return 1 }

type u16Codec struct{}

func (u16Codec) Size(uint16) int                  { return 2 }
func (u16Codec) Append(b []byte, v uint16) []byte { return AppendU16(b, v) }
func (u16Codec) Decode(d *Decoder) uint16         { return d.U16() }
func (u16Codec) MinSize() int                     { return 2 }

type u32Codec struct{}

func (u32Codec) Size(uint32) int                  { return 4 }
func (u32Codec) Append(b []byte, v uint32) []byte { return AppendU32(b, v) }
func (u32Codec) Decode(d *Decoder) uint32         { return d.U32() }
func (u32Codec) MinSize() int                     { return 4 }

type u64Codec struct{}

func (u64Codec) Size(uint64) int                  { return 8 }
func (u64Codec) Append(b []byte, v uint64) []byte { return AppendU64(b, v) }
func (u64Codec) Decode(d *Decoder) uint64         { return d.U64() }
func (u64Codec) MinSize() int                     { return 8 }

type i8Codec struct{}

func (i8Codec) Size(int8) int                  { return 1 }
func (i8Codec) Append(b []byte, v int8) []byte { return AppendI8(b, v) }
func (i8Codec) Decode(d *Decoder) int8         { return d.I8() }
func (i8Codec) MinSize() int                   { return 1 }

type i16Codec struct{}

func (i16Codec) Size(int16) int                  { return 2 }
func (i16Codec) Append(b []byte, v int16) []byte { return AppendI16(b, v) }
func (i16Codec) Decode(d *Decoder) int16         { return d.I16() }
func (i16Codec) MinSize() int                    { return 2 }

type i32Codec struct{}

func (i32Codec) Size(int32) int                  { return 4 }
func (i32Codec) Append(b []byte, v int32) []byte { return AppendI32(b, v) }
func (i32Codec) Decode(d *Decoder) int32         { return d.I32() }
func (i32Codec) MinSize() int                    { return 4 }

type i64Codec struct{}

func (i64Codec) Size(int64) int                  { return 8 }
func (i64Codec) Append(b []byte, v int64) []byte { return AppendI64(b, v) }
func (i64Codec) Decode(d *Decoder) int64         { return d.I64() }
func (i64Codec) MinSize() int                    { return 8 }

type sizeCodec struct{}

func (sizeCodec) Size(uint64) int                  { return 8 }
func (sizeCodec) Append(b []byte, v uint64) []byte { return AppendU64(b, v) }
func (sizeCodec) Decode(d *Decoder) uint64         { return d.Size() }
func (sizeCodec) MinSize() int                     { return 8 }

type addrCodec struct{}

func (addrCodec) Size(Addr) int                  { return 8 }
func (addrCodec) Append(b []byte, v Addr) []byte { return AppendAddr(b, v) }
func (addrCodec) Decode(d *Decoder) Addr         { return d.Addr() }
func (addrCodec) MinSize() int                   { return 8 }

type stringCodec struct{}

func (stringCodec) Size(v string) int                { return 8 + len(v) }
func (stringCodec) Append(b []byte, v string) []byte { return AppendString(b, v) }
func (stringCodec) Decode(d *Decoder) string         { return d.String() }
func (stringCodec) MinSize() int                     { return 8 }

type bytesCodec struct{ copy bool }

func (bytesCodec) Size(v []byte) int                { return 8 + len(v) }
func (bytesCodec) Append(b []byte, v []byte) []byte { return AppendBytes(b, v) }
func (c bytesCodec) Decode(d *Decoder) []byte {
	if c.copy {
		return d.BytesCopy()
	}
	return d.Bytes()
}
func (bytesCodec) MinSize() int { return 8 }

type emptyCodec struct{}

func (emptyCodec) Size(struct{}) int                  { return 0 }
func (emptyCodec) Append(b []byte, _ struct{}) []byte { return b }
func (emptyCodec) Decode(*Decoder) struct{}           { return struct{}{} }
func (emptyCodec) MinSize() int                       { return 0 }

// RemoteError is an error message carried in an SPSError or SPSExpected.
// SPS flattens every error to its message, so this is all that survives the
// wire.
type RemoteError struct{ Msg string }

func (e *RemoteError) Error() string { return e.Msg }

type errorCodec struct{}

func (errorCodec) Size(v error) int {
	if v == nil {
		return 1
	}
	return 1 + 8 + len(v.Error())
}

func (errorCodec) Append(b []byte, v error) []byte {
	if v == nil {
		return append(b, 0)
	}
	return AppendString(append(b, 1), v.Error())
}

func (errorCodec) Decode(d *Decoder) error {
	if !d.Bool() {
		return nil
	}
	msg := d.String()
	if d.Failed() {
		return nil
	}
	return &RemoteError{Msg: msg}
}

func (errorCodec) MinSize() int { return 1 }

// seqCodec is SPSSequence<T>.
type seqCodec[T any] struct{ elem Codec[T] }

// Seq returns the codec for SPSSequence<T> as a Go slice. Decoding
// allocates the slice (its capacity bounded by the remaining input, see
// [Decoder.Count]); use [DecodeSeq] to decode into a reused slice. For the
// predefined fixed-size integer codecs (U8..U64, I8..I64, Char, AddrCodec)
// the returned codec uses the bulk paths of [AppendInts] and [DecodeInts].
func Seq[T any](elem Codec[T]) Codec[[]T] {
	var c any
	switch any(elem).(type) {
	case u8Codec:
		c = intSeqCodec[uint8]{}
	case i8Codec:
		c = intSeqCodec[int8]{}
	case u16Codec:
		c = intSeqCodec[uint16]{}
	case i16Codec:
		c = intSeqCodec[int16]{}
	case u32Codec:
		c = intSeqCodec[uint32]{}
	case i32Codec:
		c = intSeqCodec[int32]{}
	case u64Codec:
		c = intSeqCodec[uint64]{}
	case i64Codec:
		c = intSeqCodec[int64]{}
	case addrCodec:
		c = intSeqCodec[Addr]{}
	}
	if ic, ok := c.(Codec[[]T]); ok {
		return ic
	}
	return seqCodec[T]{elem}
}

// intSeqCodec is SPSSequence<T> for fixed-size integers (bulk paths).
type intSeqCodec[T FixedInt] struct{}

func (intSeqCodec[T]) Size(v []T) int                { return SizeInts[T](len(v)) }
func (intSeqCodec[T]) Append(b []byte, v []T) []byte { return AppendInts(b, v) }
func (intSeqCodec[T]) MinSize() int                  { return 8 }
func (intSeqCodec[T]) Decode(d *Decoder) []T {
	v := DecodeInts[T](d, nil)
	if d.Failed() {
		return nil
	}
	if v == nil {
		v = []T{}
	}
	return v
}

// DecodeSeq reads an SPSSequence<T> with elem and appends the elements to
// dst, like append (pass dst[:0] to reuse a buffer). On failure it records
// the error in d and returns dst at its original length.
func DecodeSeq[T any](d *Decoder, elem Codec[T], dst []T) []T {
	n := d.Count(elem.MinSize(), "sequence length")
	if d.Failed() {
		return dst
	}
	l := len(dst)
	dst = slices.Grow(dst, n)
	for range n {
		e := elem.Decode(d)
		if d.Failed() {
			clear(dst[l:])
			return dst[:l]
		}
		dst = append(dst, e)
	}
	return dst
}

// AppendSeq appends an SPSSequence<T> encoded with elem. It is what
// Seq(elem).Append does, without building the sequence codec.
func AppendSeq[T any](b []byte, elem Codec[T], v []T) []byte {
	b = AppendCount(b, len(v))
	for i := range v {
		b = elem.Append(b, v[i])
	}
	return b
}

// SizeSeq is the encoded size of an SPSSequence<T> encoded with elem.
func SizeSeq[T any](elem Codec[T], v []T) int {
	n := 8
	for i := range v {
		n += elem.Size(v[i])
	}
	return n
}

func (c seqCodec[T]) Size(v []T) int                { return SizeSeq(c.elem, v) }
func (c seqCodec[T]) Append(b []byte, v []T) []byte { return AppendSeq(b, c.elem, v) }

func (c seqCodec[T]) Decode(d *Decoder) []T {
	v := DecodeSeq(d, c.elem, nil)
	if d.Failed() {
		return nil
	}
	if v == nil {
		v = []T{}
	}
	return v
}

func (seqCodec[T]) MinSize() int { return 8 }

// Option is the Go form of SPSOptional<T>.
type Option[T any] struct {
	Value T
	OK    bool
}

// Some returns a present Option.
func Some[T any](v T) Option[T] { return Option[T]{Value: v, OK: true} }

type optionalCodec[T any] struct{ elem Codec[T] }

// Optional returns the codec for SPSOptional<T>.
func Optional[T any](elem Codec[T]) Codec[Option[T]] { return optionalCodec[T]{elem} }

func (c optionalCodec[T]) Size(v Option[T]) int {
	if !v.OK {
		return 1
	}
	return 1 + c.elem.Size(v.Value)
}

func (c optionalCodec[T]) Append(b []byte, v Option[T]) []byte {
	if !v.OK {
		return append(b, 0)
	}
	return c.elem.Append(append(b, 1), v.Value)
}

func (c optionalCodec[T]) Decode(d *Decoder) Option[T] {
	if !d.Bool() {
		return Option[T]{}
	}
	v := c.elem.Decode(d)
	if d.Failed() {
		return Option[T]{}
	}
	return Option[T]{Value: v, OK: true}
}

func (optionalCodec[T]) MinSize() int { return 1 }

// Expected is the Go form of SPSExpected<T>: a value, or an error whose
// message travels on the wire. Err == nil means success.
type Expected[T any] struct {
	Value T
	Err   error
}

type expectedCodec[T any] struct{ elem Codec[T] }

// ExpectedOf returns the codec for SPSExpected<T>. Note the polarity: the
// leading byte is has-value (1 = success), the opposite of SPSError.
func ExpectedOf[T any](elem Codec[T]) Codec[Expected[T]] { return expectedCodec[T]{elem} }

func (c expectedCodec[T]) Size(v Expected[T]) int {
	if v.Err != nil {
		return 1 + 8 + len(v.Err.Error())
	}
	return 1 + c.elem.Size(v.Value)
}

func (c expectedCodec[T]) Append(b []byte, v Expected[T]) []byte {
	if v.Err != nil {
		return AppendString(append(b, 0), v.Err.Error())
	}
	return c.elem.Append(append(b, 1), v.Value)
}

func (c expectedCodec[T]) Decode(d *Decoder) Expected[T] {
	if d.Bool() {
		return Expected[T]{Value: c.elem.Decode(d)}
	}
	msg := d.String()
	if d.Failed() {
		return Expected[T]{}
	}
	return Expected[T]{Err: &RemoteError{Msg: msg}}
}

func (expectedCodec[T]) MinSize() int { return 1 }

// Pair is the Go form of a two-element SPSTuple.
type Pair[A, B any] struct {
	First  A
	Second B
}

type tuple2Codec[A, B any] struct {
	a Codec[A]
	b Codec[B]
}

// Tuple2 returns the codec for SPSTuple<A, B>.
func Tuple2[A, B any](a Codec[A], b Codec[B]) Codec[Pair[A, B]] { return tuple2Codec[A, B]{a, b} }

func (c tuple2Codec[A, B]) Size(v Pair[A, B]) int {
	return c.a.Size(v.First) + c.b.Size(v.Second)
}

func (c tuple2Codec[A, B]) Append(b []byte, v Pair[A, B]) []byte {
	return c.b.Append(c.a.Append(b, v.First), v.Second)
}

func (c tuple2Codec[A, B]) Decode(d *Decoder) Pair[A, B] {
	a := c.a.Decode(d)
	b := c.b.Decode(d)
	return Pair[A, B]{a, b}
}

func (c tuple2Codec[A, B]) MinSize() int { return c.a.MinSize() + c.b.MinSize() }

// Triple is the Go form of a three-element SPSTuple.
type Triple[A, B, C any] struct {
	First  A
	Second B
	Third  C
}

type tuple3Codec[A, B, C any] struct {
	a Codec[A]
	b Codec[B]
	c Codec[C]
}

// Tuple3 returns the codec for SPSTuple<A, B, C>.
func Tuple3[A, B, C any](a Codec[A], b Codec[B], c Codec[C]) Codec[Triple[A, B, C]] {
	return tuple3Codec[A, B, C]{a, b, c}
}

func (c tuple3Codec[A, B, C]) Size(v Triple[A, B, C]) int {
	return c.a.Size(v.First) + c.b.Size(v.Second) + c.c.Size(v.Third)
}

func (c tuple3Codec[A, B, C]) Append(b []byte, v Triple[A, B, C]) []byte {
	return c.c.Append(c.b.Append(c.a.Append(b, v.First), v.Second), v.Third)
}

func (c tuple3Codec[A, B, C]) Decode(d *Decoder) Triple[A, B, C] {
	a := c.a.Decode(d)
	b := c.b.Decode(d)
	x := c.c.Decode(d)
	return Triple[A, B, C]{a, b, x}
}

func (c tuple3Codec[A, B, C]) MinSize() int {
	return c.a.MinSize() + c.b.MinSize() + c.c.MinSize()
}

type mapCodec[K comparable, V any] struct {
	k Codec[K]
	v Codec[V]
}

// MapOf returns the codec for SPSMap<K, V> (a sequence of key/value
// tuples). Decoding rejects duplicate keys, as LLVM does. Encoding order
// follows Go map iteration and is therefore unspecified, as in LLVM.
func MapOf[K comparable, V any](k Codec[K], v Codec[V]) Codec[map[K]V] { return mapCodec[K, V]{k, v} }

func (c mapCodec[K, V]) Size(m map[K]V) int {
	n := 8
	for k, v := range m {
		n += c.k.Size(k) + c.v.Size(v)
	}
	return n
}

func (c mapCodec[K, V]) Append(b []byte, m map[K]V) []byte {
	b = AppendCount(b, len(m))
	for k, v := range m {
		b = c.v.Append(c.k.Append(b, k), v)
	}
	return b
}

func (c mapCodec[K, V]) Decode(d *Decoder) map[K]V {
	n := d.Count(c.k.MinSize()+c.v.MinSize(), "map length")
	if d.Failed() {
		return nil
	}
	m := make(map[K]V, n)
	for range n {
		off := d.Offset()
		k := c.k.Decode(d)
		v := c.v.Decode(d)
		if d.Failed() {
			return nil
		}
		if _, dup := m[k]; dup {
			d.failAt(off, "map key", "duplicate key "+keyString(k))
			return nil
		}
		m[k] = v
	}
	return m
}

func (mapCodec[K, V]) MinSize() int { return 8 }

// keyString renders a map key for an error message, bounded in length so
// that a hostile multi-megabyte key does not end up in a log line.
func keyString[K comparable](k K) string {
	const limit = 64
	switch v := any(k).(type) {
	case string:
		if len(v) > limit {
			return strconv.Quote(v[:limit]) + "..."
		}
		return strconv.Quote(v)
	case Addr:
		return fmt.Sprintf("%#x", uint64(v))
	}
	s := fmt.Sprint(k)
	if len(s) > limit {
		s = s[:limit] + "..."
	}
	return s
}

type mapEntriesCodec[K comparable, V any] struct {
	k Codec[K]
	v Codec[V]
}

// MapEntriesOf returns the codec for SPSMap<K, V> as entries in wire
// order, so a decoded map re-encodes to the same bytes. Decoding rejects
// duplicate keys, as LLVM does.
func MapEntriesOf[K comparable, V any](k Codec[K], v Codec[V]) Codec[[]Pair[K, V]] {
	return mapEntriesCodec[K, V]{k, v}
}

func (c mapEntriesCodec[K, V]) Size(m []Pair[K, V]) int {
	n := 8
	for i := range m {
		n += c.k.Size(m[i].First) + c.v.Size(m[i].Second)
	}
	return n
}

func (c mapEntriesCodec[K, V]) Append(b []byte, m []Pair[K, V]) []byte {
	b = AppendCount(b, len(m))
	for i := range m {
		b = c.v.Append(c.k.Append(b, m[i].First), m[i].Second)
	}
	return b
}

func (c mapEntriesCodec[K, V]) Decode(d *Decoder) []Pair[K, V] {
	n := d.Count(c.k.MinSize()+c.v.MinSize(), "map length")
	if d.Failed() {
		return nil
	}
	m := make([]Pair[K, V], 0, n)
	var seen map[K]struct{}
	for range n {
		off := d.Offset()
		k := c.k.Decode(d)
		v := c.v.Decode(d)
		if d.Failed() {
			return nil
		}
		if isDuplicate(m, &seen, k) {
			d.failAt(off, "map key", "duplicate key "+keyString(k))
			return nil
		}
		m = append(m, Pair[K, V]{k, v})
	}
	return m
}

func (mapEntriesCodec[K, V]) MinSize() int { return 8 }

// isDuplicate reports whether k was decoded before and records it
// (a scan, then a set: linear for hostile inputs).
func isDuplicate[K comparable, V any](m []Pair[K, V], seen *map[K]struct{}, k K) bool {
	const scanLimit = 16
	if len(m) < scanLimit {
		for i := range m {
			if m[i].First == k {
				return true
			}
		}
		return false
	}
	if *seen == nil {
		*seen = make(map[K]struct{}, 2*len(m))
		for i := range m {
			(*seen)[m[i].First] = struct{}{}
		}
	}
	if _, dup := (*seen)[k]; dup {
		return true
	}
	(*seen)[k] = struct{}{}
	return false
}

// Marshal encodes v with c into a new slice of exactly the right size.
func Marshal[T any](c Codec[T], v T) []byte {
	return c.Append(make([]byte, 0, c.Size(v)), v)
}

// Unmarshal decodes one value of c from b. Trailing bytes are ignored, as
// LLVM ignores them. It allocates nothing itself (the Decoder comes from a
// pool); what the value needs is up to c.
func Unmarshal[T any](c Codec[T], b []byte) (T, error) {
	d := getDecoder(b)
	v := c.Decode(d)
	err := d.Err()
	putDecoder(d)
	if err != nil {
		var zero T
		return zero, err
	}
	return v, nil
}
