package sps

// Behaviour-for-behaviour ports of upstream orc-rt's SPS unit tests
// (SPSAllocActionTest, SimplePackedSerializationTest, SPSMemoryFlagsTest,
// ExecutorAddressTest in llvm-project's orc-rt/unittests). Test names follow the
// upstream ones.

import (
	"fmt"
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// roundTrip encodes v with c, checks Size, decodes it back and checks that
// every byte was consumed.
func roundTrip[T any](t *testing.T, c Codec[T], v T) T {
	t.Helper()
	b := Marshal(c, v)
	require.Len(t, b, c.Size(v), "Size")
	d := NewDecoder(b)
	got := c.Decode(&d)
	require.NoError(t, d.Err())
	require.Equal(t, len(b), d.Offset(), "consumed")
	return got
}

// SPSOutputBuffer: upstream writes 8 bytes into an 8-byte buffer and the
// 9th write fails. Appending encoders cannot fail; the equivalent property
// is that a buffer sized with Size is filled exactly, without reallocation,
// and that one more byte does reallocate.
func TestSPSOutputBuffer(t *testing.T) {
	buf := make([]byte, 0, 8)
	b := buf
	for i := range 8 {
		b = AppendU8(b, byte(i))
	}
	require.Equal(t, []byte{0, 1, 2, 3, 4, 5, 6, 7}, b)
	assert.Same(t, unsafe.SliceData(buf), unsafe.SliceData(b), "8 writes stay in the 8-byte buffer")
	b = AppendU8(b, 8)
	assert.NotSame(t, unsafe.SliceData(buf), unsafe.SliceData(b), "the 9th write needs a new buffer")

	fr := captureA()
	out := make([]byte, 0, fr.Size())
	enc := fr.Append(out)
	assert.Len(t, enc, fr.Size())
	assert.Same(t, unsafe.SliceData(out), unsafe.SliceData(enc), "Size is exact")
}

func TestSPSInputBuffer(t *testing.T) {
	d := NewDecoder([]byte{0, 1, 2, 3, 4, 5, 6, 7})
	for i := range 8 {
		assert.Equal(t, uint8(i), d.U8())
		require.NoError(t, d.Err())
	}
	assert.Equal(t, uint8(0), d.U8())
	var de *DecodeError
	require.ErrorAs(t, d.Err(), &de)
	assert.Equal(t, 8, de.Off)
	assert.Equal(t, "sps: decoding u8 at offset 8: need 1 bytes, have 0", de.Error())
}

func TestBoolSerialization(t *testing.T) {
	for _, v := range []bool{true, false} {
		assert.Equal(t, v, roundTrip(t, Bool, v))
	}
}

func TestCharSerialization(t *testing.T) {
	for _, v := range []byte{0x00, 0xAA, 0xFF} {
		assert.Equal(t, v, roundTrip(t, Char, v))
	}
}

func intCases[T FixedInt](min, max T) []T { return []T{0, 1, ^T(0), min, max} }

func testInts[T FixedInt](t *testing.T, c Codec[T], min, max T) {
	for _, v := range intCases(min, max) {
		t.Run(fmt.Sprint(v), func(t *testing.T) {
			assert.Equal(t, v, roundTrip(t, c, v))
		})
	}
}

func TestInt8Serialization(t *testing.T)   { testInts(t, I8, math.MinInt8, math.MaxInt8) }
func TestUInt8Serialization(t *testing.T)  { testInts(t, U8, 0, math.MaxUint8) }
func TestInt16Serialization(t *testing.T)  { testInts(t, I16, math.MinInt16, math.MaxInt16) }
func TestUInt16Serialization(t *testing.T) { testInts(t, U16, 0, math.MaxUint16) }
func TestInt32Serialization(t *testing.T)  { testInts(t, I32, math.MinInt32, math.MaxInt32) }
func TestUInt32Serialization(t *testing.T) { testInts(t, U32, 0, math.MaxUint32) }
func TestInt64Serialization(t *testing.T)  { testInts(t, I64, math.MinInt64, math.MaxInt64) }
func TestUInt64Serialization(t *testing.T) { testInts(t, U64, 0, math.MaxUint64) }

func TestSizeTSerialization(t *testing.T) {
	assert.Equal(t, uint64(42), roundTrip(t, Size, 42))
	// size_t is 64 bits on every host orcrt supports: all values fit.
	assert.Equal(t, uint64(math.MaxUint64), roundTrip(t, Size, math.MaxUint64))
}

func TestSequenceSerialization(t *testing.T) {
	v := []int32{1, 2, -3, 4, math.MaxInt32}
	assert.Equal(t, v, roundTrip(t, Seq(I32), v))
	assert.Equal(t, v, roundTrip(t, Codec[[]int32](seqCodec[int32]{I32}), v), "generic path")
}

// IteratorRangeSequenceSerialization: a range (sub-slice) has the wire
// format of a vector and encodes only its own elements; a range built from
// a raw pointer works too.
func TestIteratorRangeSequenceSerialization(t *testing.T) {
	all := []int32{1, 2, 3, 4, 5}
	assert.Equal(t, Marshal(Seq(I32), []int32{2, 3, 4}), Marshal(Seq(I32), all[1:4]))
	arr := [3]uint32{7, 8, 9}
	raw := unsafe.Slice(&arr[0], len(arr))
	assert.Equal(t, AppendU32s(nil, []uint32{7, 8, 9}), AppendU32s(nil, raw))
	assert.Equal(t, []uint32{7, 8, 9}, roundTrip(t, Seq(U32), raw))
}

func TestExecutorAddr(t *testing.T) {
	assert.Equal(t, Addr(0x7f2861569000), roundTrip(t, AddrCodec, 0x7f2861569000))
}

func TestExecutorAddrRange(t *testing.T) {
	r := AddrRange{0x1000, 0x2000}
	assert.Equal(t, r, roundTrip(t, AddrRangeCodec, r))
}

func TestStringViewCharSequenceSerialization(t *testing.T) {
	assert.Equal(t, "hello, world", roundTrip(t, String, "hello, world"))
}

// SpanSerialization: a byte view handles embedded NULs and points into the
// buffer at offset 8; its capacity is clamped so appends cannot write into
// the input.
func TestSpanSerialization(t *testing.T) {
	in := []byte("a\x00b\x00c")
	b := AppendBytes(nil, in)
	d := NewDecoder(b)
	v := d.Bytes()
	require.NoError(t, d.Err())
	assert.Equal(t, in, v)
	assert.Same(t, &b[8], &v[0], "the view aliases the input at offset 8")
	assert.Equal(t, len(v), cap(v), "capacity is clamped")
	_ = append(v, 'X')
	assert.Equal(t, AppendBytes(nil, in), b, "appending to the view leaves the input alone")
}

func TestSpanAsAddrRangeSerialization(t *testing.T) {
	r := AddrRange{0x1000, 0x1010}
	assert.Equal(t, r, roundTrip(t, SpanRangeCodec(1), r))
}

func TestSpanAsAddrRangeNonCharElement(t *testing.T) {
	r := AddrRange{0x1000, 0x1000 + 3*4}
	assert.Equal(t, r, roundTrip(t, SpanRangeCodec(4), r))
	assert.Equal(t, uint64(3), r.Size()/4)
}

// SpanAsAddrRangeConstElement: Go has no const element types; the closest
// is a range over immutable string data, which works the same way.
func TestSpanAsAddrRangeConstElement(t *testing.T) {
	s := "immutable data"
	start := Addr(uintptr(unsafe.Pointer(unsafe.StringData(s))))
	r := AddrRange{start, start + Addr(len(s))}
	assert.Equal(t, r, roundTrip(t, SpanRangeCodec(1), r))
}

func TestSpanAsAddrRangeEmpty(t *testing.T) {
	for _, r := range []AddrRange{{}, {0x1234, 0x1234}} {
		got := roundTrip(t, SpanRangeCodec(8), r)
		assert.Equal(t, r, got, "an empty span keeps its base")
		assert.True(t, got.Empty())
	}
}

func TestSpanAsAddrRangeMatchesExecutorAddrRange(t *testing.T) {
	r := AddrRange{0x1000, 0x1020}
	assert.Equal(t, Marshal(AddrRangeCodec, r), Marshal(SpanRangeCodec(4), r))
	got, err := Unmarshal(SpanRangeCodec(4), Marshal(AddrRangeCodec, r))
	require.NoError(t, err)
	assert.Equal(t, r, got)
}

func TestSpanAsAddrRangeRejects(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"PartialElement", Marshal(AddrRangeCodec, AddrRange{0x1000, 0x1006}), "length 6 is not a multiple of the 4-byte element size"},
		{"InvertedRange", Marshal(AddrRangeCodec, AddrRange{0x2000, 0x1000}), "end 0x1000 is below start 0x2000"},
		{"AllOnesBound", Marshal(AddrRangeCodec, AddrRange{0x1000, ^Addr(0)}), "all-ones"},
		{"TruncatedInput", AppendAddr(nil, 0x1000), "decoding u64 at offset 8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Unmarshal(SpanRangeCodec(4), tc.in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestStdTupleSerialization(t *testing.T) {
	c := Tuple3(I32, String, Bool)
	v := Triple[int32, string, bool]{42, "foo", true}
	assert.Equal(t, v, roundTrip(t, c, v))
}

func TestStdPairSerialization(t *testing.T) {
	c := Tuple2(I32, String)
	v := Pair[int32, string]{42, "foo"}
	assert.Equal(t, v, roundTrip(t, c, v))
}

func TestStdOptionalNoValueSerialization(t *testing.T) {
	assert.Equal(t, Option[int64]{}, roundTrip(t, Optional(I64), Option[int64]{}))
	assert.Equal(t, []byte{0}, Marshal(Optional(I64), Option[int64]{Value: 5}), "a value without OK is not encoded")
}

func TestStdOptionalValueSerialization(t *testing.T) {
	assert.Equal(t, Some[int64](42), roundTrip(t, Optional(I64), Some[int64](42)))
}

// Pointers: a Go pointer travels as an SPSExecutorAddr.
func TestPointers(t *testing.T) {
	x := 42
	p := Addr(uintptr(unsafe.Pointer(&x)))
	assert.Equal(t, p, roundTrip(t, AddrCodec, p))
}

func TestArgListSerialization(t *testing.T) {
	f := Func3[bool, int32, string, struct{}]{Arg1: Bool, Arg2: I32, Arg3: String, Ret: Empty}
	b := f.AppendArgs(nil, true, 42, "foo")
	require.Len(t, b, f.ArgsSize(true, 42, "foo"))
	assert.Equal(t, append([]byte{1, 42, 0, 0, 0}, AppendString(nil, "foo")...), b, "no padding, no count")
	a1, a2, a3, err := f.DecodeArgs(b)
	require.NoError(t, err)
	assert.Equal(t, true, a1)
	assert.Equal(t, int32(42), a2)
	assert.Equal(t, "foo", a3)
}

func TestSerializeErrorSuccess(t *testing.T) {
	assert.Equal(t, []byte{0}, Marshal(ErrorCodec, nil))
	assert.NoError(t, roundTrip(t, ErrorCodec, nil))
}

func TestSerializeErrorFailure(t *testing.T) {
	err := roundTrip(t, ErrorCodec, fmt.Errorf("test error"))
	var re *RemoteError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "test error", re.Msg)
	assert.Equal(t, byte(1), Marshal(ErrorCodec, err)[0], "SPSError leads with has-error")
}

func TestSerializeExpectedSuccessViaExpected(t *testing.T) {
	v := roundTrip(t, ExpectedOf(U32), Expected[uint32]{Value: 42})
	require.NoError(t, v.Err)
	assert.Equal(t, uint32(42), v.Value)
}

// SerializeExpectedSuccessViaValue: serializing a plain value as an
// SPSExpected is the has-value byte followed by the value.
func TestSerializeExpectedSuccessViaValue(t *testing.T) {
	b := append([]byte{1}, Marshal(U32, 42)...)
	assert.Equal(t, b, Marshal(ExpectedOf(U32), Expected[uint32]{Value: 42}))
	v, err := Unmarshal(ExpectedOf(U32), b)
	require.NoError(t, err)
	assert.Equal(t, Expected[uint32]{Value: 42}, v)
}

func TestSerializeExpectedFailure(t *testing.T) {
	v := roundTrip(t, ExpectedOf(U32), Expected[uint32]{Err: fmt.Errorf("test error")})
	require.Error(t, v.Err)
	assert.Equal(t, "test error", v.Err.Error())
	assert.Equal(t, byte(0), Marshal(ExpectedOf(U32), v)[0], "SPSExpected leads with has-value")
}

// §9.6 SPSAllocActionTest, serialization half (running actions belongs to
// the alloc package).
func TestAllocActionSerialization(t *testing.T) {
	a := WrapperCall{Fn: 0x1234, Args: []byte{1, 2, 3, 4}}
	got := roundTrip(t, WrapperCallCodec, a)
	assert.Equal(t, a, got)
	assert.False(t, got.IsNull())
	assert.True(t, roundTrip(t, WrapperCallCodec, WrapperCall{}).IsNull())
}

func TestAllocActionPairSerialization(t *testing.T) {
	p := ActionPair{WrapperCall{0x1234, []byte{1, 2}}, WrapperCall{0x5678, []byte{3}}}
	assert.Equal(t, p, roundTrip(t, ActionPairCodec, p))
}

// RunActionWithUndecodableArgs / RunActionWithErrorSuccessReturn /
// FailureReturn, at the codec level: a 1-byte argument buffer does not
// decode as an ExecutorAddr, and an SPSError result decodes to success or
// to the failure text.
func TestAllocActionArgsAndResults(t *testing.T) {
	_, err := RegisterEHFrameAction.DecodeArgs([]byte{1})
	require.Error(t, err)
	assert.Equal(t, "sps: decoding u64 at offset 0: need 8 bytes, have 1", err.Error())

	r, err := RegisterEHFrameAction.DecodeResult(RegisterEHFrameAction.AppendResult(nil, nil))
	require.NoError(t, err)
	assert.NoError(t, r)
	r, err = RegisterEHFrameAction.DecodeResult(RegisterEHFrameAction.AppendResult(nil, fmt.Errorf("test failure")))
	require.NoError(t, err)
	assert.EqualError(t, r, "test failure")

	// Macro-defined action analogue: (Addr, Addr) arguments compared by a
	// handler that fails with "X and Y differ".
	f := Func2[Addr, Addr, error]{Arg1: AddrCodec, Arg2: AddrCodec, Ret: ErrorCodec}
	handler := func(b []byte) []byte {
		x, y, err := f.DecodeArgs(b)
		if err != nil {
			return nil
		}
		if x != y {
			return f.AppendResult(nil, fmt.Errorf("%d and %d differ", x, y))
		}
		return f.AppendResult(nil, nil)
	}
	res, err := f.DecodeResult(handler(f.AppendArgs(nil, 1, 1)))
	require.NoError(t, err)
	assert.NoError(t, res)
	res, err = f.DecodeResult(handler(f.AppendArgs(nil, 1, 2)))
	require.NoError(t, err)
	assert.EqualError(t, res, "1 and 2 differ")
}

// §9.9 SPSMemoryFlagsTest.TestAllocGroupSerialization: all 16 combinations.
func TestAllocGroupSerialization(t *testing.T) {
	for _, r := range []AllocGroup{0, Read} {
		for _, w := range []AllocGroup{0, Write} {
			for _, x := range []AllocGroup{0, Exec} {
				for _, f := range []AllocGroup{0, FinalizeLifetime} {
					g := r | w | x | f
					t.Run(g.String(), func(t *testing.T) {
						assert.Equal(t, g, roundTrip(t, AllocGroupCodec, g))
						assert.Equal(t, []byte{byte(g)}, Marshal(AllocGroupCodec, g))
						assert.Equal(t, r|w|x, g.Prot())
					})
				}
			}
		}
	}
	assert.Equal(t, "R-X", (Read | Exec).String())
	assert.Equal(t, "RW-+finalize-lifetime", (Read | Write | FinalizeLifetime).String())
	assert.Equal(t, []byte{0x05}, Marshal(AllocGroupCodec, 0xf5), "undefined bits are not encoded")
}

// ExecutorAddressTest.
func TestExecutorAddressDefaultAndNull(t *testing.T) {
	var a Addr
	assert.Equal(t, Addr(0), a)
	assert.True(t, WrapperCall{}.IsNull())
}

func TestExecutorAddressOrdering(t *testing.T) {
	a, b, c := Addr(1), Addr(2), Addr(1)
	assert.True(t, a < b && b > a && a <= c && a >= c && a != b && a == c)
}

var ptrTarget [4]byte

func TestExecutorAddressPtrConversion(t *testing.T) {
	x := &ptrTarget // a global: stack objects may move while the test runs
	a := Addr(uintptr(unsafe.Pointer(&x[0])))
	assert.Equal(t, uintptr(unsafe.Pointer(&x[0])), uintptr(roundTrip(t, AddrCodec, a)))
}

// Hashable: an Addr is a map key that behaves like its uint64 value.
func TestExecutorAddressHashable(t *testing.T) {
	m := map[Addr]int{0x1000: 1}
	assert.Equal(t, 1, m[Addr(uint64(0x1000))])
	_, ok := m[0x1001]
	assert.False(t, ok)
}

func TestExecutorAddressAddrRanges(t *testing.T) {
	r1 := AddrRange{0x1000, 0x2000}
	r2 := AddrRange{0x1000, 0x2000}
	r3 := AddrRange{0x1800, 0x2800}
	assert.Equal(t, r1, r2)
	assert.NotEqual(t, r1, r3)

	assert.False(t, r1.Contains(0x0fff))
	assert.True(t, r1.Contains(0x1000))
	assert.True(t, r1.Contains(0x1fff))
	assert.False(t, r1.Contains(0x2000))

	assert.True(t, r1.ContainsRange(r2))
	assert.False(t, r1.ContainsRange(r3))
	assert.True(t, r1.ContainsRange(AddrRange{0x1000, 0x1001}), "singleton at the start")
	assert.True(t, r1.ContainsRange(AddrRange{0x1fff, 0x2000}), "singleton at the end")
	assert.False(t, r1.ContainsRange(AddrRange{0x0fff, 0x1000}))
	assert.False(t, r1.ContainsRange(AddrRange{0x2000, 0x2001}))

	assert.True(t, r1.Overlaps(r3))
	assert.True(t, r3.Overlaps(r1))
	assert.False(t, r1.Overlaps(AddrRange{0x2000, 0x3000}), "adjacent ranges do not overlap")
	assert.False(t, AddrRange{0x2000, 0x3000}.Overlaps(r1))

	assert.Equal(t, uint64(0x1000), r1.Size())
	assert.Equal(t, uint64(0), AddrRange{2, 1}.Size(), "an inverted range has no size")
	assert.True(t, AddrRange{5, 5}.Empty())
	assert.Equal(t, "[0x1000, 0x2000)", r1.String())
}
