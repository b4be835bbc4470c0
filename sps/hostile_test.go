package sps

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seqDecoders are every path that reads a sequence count and sizes
// something from it.
var seqDecoders = map[string]func(d *Decoder){
	"Bytes":          func(d *Decoder) { d.Bytes() },
	"BytesCopy":      func(d *Decoder) { d.BytesCopy() },
	"String":         func(d *Decoder) { _ = d.String() },
	"U8s":            func(d *Decoder) { d.U8s(nil) },
	"U16s":           func(d *Decoder) { d.U16s(nil) },
	"U32s":           func(d *Decoder) { d.U32s(nil) },
	"U64s":           func(d *Decoder) { d.U64s(nil) },
	"Addrs":          func(d *Decoder) { d.Addrs(nil) },
	"Seq(U32)":       func(d *Decoder) { Seq(U32).Decode(d) },
	"Seq(String)":    func(d *Decoder) { Seq(String).Decode(d) },
	"Seq(Empty)":     func(d *Decoder) { Seq(Empty).Decode(d) },
	"Seq(Seq(U8))":   func(d *Decoder) { Seq(Seq(U8)).Decode(d) },
	"DecodeSeq":      func(d *Decoder) { DecodeSeq(d, UInt64WriteCodec, nil) },
	"LookupSet":      func(d *Decoder) { LookupSetCodec.Decode(d) },
	"LookupResult":   func(d *Decoder) { LookupResultCodec.Decode(d) },
	"MapOf":          func(d *Decoder) { MapOf(String, U64).Decode(d) },
	"MapEntriesOf":   func(d *Decoder) { MapEntriesOf(String, U64).Decode(d) },
	"FinalizeSegs":   func(d *Decoder) { var r FinalizeRequest; r.Decode(d) },
	"FinalizeCodec":  func(d *Decoder) { FinalizeRequestCodec.Decode(d) },
	"SharedFinalize": func(d *Decoder) { var r SharedFinalizeRequest; r.Decode(d) },
	"WriteBuffers":   func(d *Decoder) { WriteBuffers.Arg1.Decode(d) },
	"InitDeps":       func(d *Decoder) { InitializerDepsCodec.Decode(d) },
}

// heapAllocBytes reports the bytes allocated while f runs.
func heapAllocBytes(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestHostileCounts feeds counts near 2^64, counts whose product with the
// element size overflows, and counts one past what the input can hold, to
// every sequence decoder. Each must fail with a DecodeError at offset 0,
// without panicking and without allocating anything sized by the count.
func TestHostileCounts(t *testing.T) {
	counts := []uint64{
		math.MaxUint64, math.MaxUint64 - 1, 1 << 63, 1<<62 + 1, 1 << 61, 1 << 60,
		math.MaxInt64/25 + 1, math.MaxUint64/32 + 1, 1 << 32, 17,
	}
	tail := make([]byte, 16)
	for name, dec := range seqDecoders {
		for _, n := range counts {
			t.Run(fmt.Sprintf("%s/%#x", name, n), func(t *testing.T) {
				in := append(AppendU64(nil, n), tail...)
				var d Decoder
				alloc := heapAllocBytes(func() {
					d.Reset(in)
					dec(&d)
				})
				require.Error(t, d.Err())
				var de *DecodeError
				require.ErrorAs(t, d.Err(), &de)
				assert.Equal(t, 0, de.Off, "the count is reported at its own offset")
				assert.Contains(t, de.Reason, fmt.Sprint(n))
				assert.Less(t, alloc, uint64(64<<10), "allocated %d bytes for a 24-byte input", alloc)
			})
		}
	}
}

// TestCountProductOverflow: count*elemSize must not wrap. 2^62 elements of
// 4 bytes is 2^64 = 0 (mod 2^64) bytes, 2^61 of 8 likewise.
func TestCountProductOverflow(t *testing.T) {
	for _, tc := range []struct {
		n    uint64
		size int
	}{{1 << 62, 4}, {1 << 61, 8}, {1 << 63, 2}, {math.MaxUint64/25 + 1, 25}} {
		d := NewDecoder(AppendU64(nil, tc.n))
		assert.Equal(t, 0, d.Count(tc.size, "n"), "count %#x of %d-byte elements", tc.n, tc.size)
		assert.Error(t, d.Err())
	}
	d := NewDecoder(AppendU64(nil, 1<<62))
	assert.Nil(t, d.U32s(nil))
	assert.EqualError(t, d.Err(), fmt.Sprintf("sps: decoding sequence length at offset 0: length %d needs at least 4 bytes per element, 0 bytes remain", uint64(1<<62)))
}

// TestZeroSizeElements: SPSEmpty encodes to nothing, yet a count of them
// may not exceed the bytes that remain (LLVM would accept any count; this
// bound is what keeps hostile counts from spinning or allocating).
func TestZeroSizeElements(t *testing.T) {
	in := append(AppendU64(nil, 3), 'a', 'b', 'c')
	v, err := Unmarshal(Seq(Empty), in)
	require.NoError(t, err)
	assert.Len(t, v, 3)
	in = append(AppendU64(nil, 4), 'a', 'b', 'c')
	_, err = Unmarshal(Seq(Empty), in)
	assert.EqualError(t, err, "sps: decoding sequence length at offset 0: length 4 exceeds the 3 bytes remaining")
}

func TestDecodeErrorMessages(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		dec  func(d *Decoder)
		want string
	}{
		{"empty u64", nil, func(d *Decoder) { d.U64() }, "sps: decoding u64 at offset 0: need 8 bytes, have 0"},
		{"short u32", []byte{1, 2, 3}, func(d *Decoder) { d.U32() }, "sps: decoding u32 at offset 0: need 4 bytes, have 3"},
		{"short u16", []byte{1}, func(d *Decoder) { d.U16() }, "sps: decoding u16 at offset 0: need 2 bytes, have 1"},
		{"bool at end", []byte{1}, func(d *Decoder) { d.Bool(); d.Bool() }, "sps: decoding bool at offset 1: need 1 bytes, have 0"},
		{"second field", AppendU64(nil, 1), func(d *Decoder) { d.Addr(); d.Addr() }, "sps: decoding u64 at offset 8: need 8 bytes, have 0"},
		{"string length", append(AppendU64(nil, 10), "abc"...), func(d *Decoder) { _ = d.String() }, "sps: decoding byte sequence length at offset 0: length 10 exceeds the 3 bytes remaining"},
		{"raw negative", nil, func(d *Decoder) { d.Raw(-1, "raw") }, "sps: decoding raw at offset 0: negative length"},
		{"raw short", []byte{1}, func(d *Decoder) { d.Raw(2, "header") }, "sps: decoding header at offset 0: need 2 bytes, have 1"},
		{"fail", []byte{1, 2}, func(d *Decoder) { d.U8(); d.Fail("thing", "bad") }, "sps: decoding thing at offset 1: bad"},
		{"fail at", []byte{1, 2}, func(d *Decoder) { d.U16(); d.FailAt(0, "thing", "bad") }, "sps: decoding thing at offset 0: bad"},
		{"segment count", AppendU64(nil, 2), func(d *Decoder) { var r FinalizeRequest; r.Decode(d) }, "sps: decoding segment count at offset 0: length 2 needs at least 25 bytes per element, 0 bytes remain"},
		{"segment content", append(append(append([]byte{5}, AppendU64(nil, 1)...), AppendU64(nil, 2)...), AppendU64(nil, 9)...), func(d *Decoder) { decodeSeg(d) }, "sps: decoding byte sequence length at offset 17: length 9 exceeds the 0 bytes remaining"},
		{"action count", AppendU64(AppendU64(nil, 0), 1), func(d *Decoder) { var r FinalizeRequest; r.Decode(d) }, "sps: decoding action count at offset 8: length 1 needs at least 32 bytes per element, 0 bytes remain"},
		{"map length", AppendU64(nil, 1), func(d *Decoder) { MapOf(String, U64).Decode(d) }, "sps: decoding map length at offset 0: length 1 needs at least 16 bytes per element, 0 bytes remain"},
		{"bootstrap symbols", append(make([]byte, 24), AppendU64(nil, 1)...), func(d *Decoder) { SetupInfoCodec.Decode(d) }, "sps: decoding bootstrap symbols length at offset 24: length 1 needs at least 16 bytes per element, 0 bytes remain"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDecoder(tc.in)
			tc.dec(&d)
			assert.EqualError(t, d.Err(), tc.want)
		})
	}
}

func TestStickyError(t *testing.T) {
	d := NewDecoder([]byte{1, 2, 3})
	d.U32()
	first := d.Err()
	require.Error(t, first)
	off := d.Offset()
	assert.Equal(t, uint8(0), d.U8(), "reads after a failure return zero")
	assert.Nil(t, d.Bytes())
	assert.Equal(t, 0, d.Count(1, "n"))
	assert.Equal(t, off, d.Offset(), "reads after a failure do not move")
	assert.Same(t, first, d.Err(), "the first error is kept")
	assert.True(t, d.Failed())
	assert.Equal(t, 3, d.Remaining())
	assert.Equal(t, []byte{1, 2, 3}, d.Rest())
	d.Reset([]byte{7})
	assert.NoError(t, d.Err())
	assert.Equal(t, uint8(7), d.U8())
}

// Printing a Decoder must not call String (which would consume input).
func TestDecoderFormatDoesNotConsume(t *testing.T) {
	d := NewDecoder(AppendString(nil, "hello"))
	s := fmt.Sprintf("%v %s %+v", &d, &d, &d)
	assert.Contains(t, s, "sps.Decoder{off: 0, len: 13, failed: false}")
	assert.Equal(t, "hello", d.String())
}

func TestDuplicateKeys(t *testing.T) {
	entries := func(n int, dupAt int) []byte {
		b := AppendCount(nil, n)
		for i := range n {
			k := fmt.Sprintf("k%d", i)
			if i == dupAt {
				k = "k0"
			}
			b = AppendU64(AppendString(b, k), uint64(i))
		}
		return b
	}
	for _, tc := range []struct{ n, dupAt int }{{2, 1}, {5, 4}, {40, 39}, {40, 17}} {
		t.Run(fmt.Sprintf("n=%d/dup=%d", tc.n, tc.dupAt), func(t *testing.T) {
			in := entries(tc.n, tc.dupAt)
			_, err := Unmarshal(MapOf(String, U64), in)
			assert.ErrorContains(t, err, `duplicate key "k0"`)
			_, err = Unmarshal(MapEntriesOf(String, U64), in)
			assert.ErrorContains(t, err, `duplicate key "k0"`)
			ok := entries(tc.n, -1)
			m, err := Unmarshal(MapEntriesOf(String, U64), ok)
			require.NoError(t, err)
			assert.Len(t, m, tc.n)
			assert.Equal(t, ok, Marshal(MapEntriesOf(String, U64), m), "entries keep wire order")
		})
	}

	// Setup: both lists, on the scan path and on the set path.
	for _, n := range []int{3, 40} {
		s := SetupInfo{Triple: "t", PageSize: 4096}
		for i := range n {
			s.Symbols = append(s.Symbols, BootstrapSymbol{fmt.Sprintf("s%d", i), Addr(i)})
			s.Values = append(s.Values, BootstrapValue{fmt.Sprintf("v%d", i), []byte{byte(i)}})
		}
		require.NoError(t, s.Validate())
		got := roundTrip(t, SetupInfoCodec, s)
		assert.Equal(t, s, got)

		dupSym := s
		dupSym.Symbols = append(append([]BootstrapSymbol{}, s.Symbols...), BootstrapSymbol{"s1", 99})
		_, err := Unmarshal(SetupInfoCodec, Marshal(SetupInfoCodec, dupSym))
		assert.ErrorContains(t, err, `bootstrap symbol name at offset`)
		assert.ErrorContains(t, err, `duplicate key "s1"`)
		assert.EqualError(t, dupSym.Validate(), `sps: setup: duplicate bootstrap symbol name "s1"`)

		dupVal := s
		dupVal.Values = append(append([]BootstrapValue{}, s.Values...), BootstrapValue{"v0", nil})
		_, err = Unmarshal(SetupInfoCodec, Marshal(SetupInfoCodec, dupVal))
		assert.ErrorContains(t, err, `bootstrap map key at offset`)
		assert.EqualError(t, dupVal.Validate(), `sps: setup: duplicate bootstrap map key "v0"`)
	}
}

func TestDuplicateKeyMessageIsBounded(t *testing.T) {
	k := strings.Repeat("x", 1<<20)
	in := AppendU64(AppendString(AppendU64(AppendString(AppendCount(nil, 2), k), 1), k), 2)
	_, err := Unmarshal(MapOf(String, U64), in)
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 200)
	assert.Equal(t, "0x10", keyString(Addr(16)))
	assert.Equal(t, "7", keyString(7))
}

// TestReusedFinalizeRequestDropsOldViews: decoding a smaller request into a
// reused FinalizeRequest clears the views of the previous input beyond the
// new length, so the old message can be collected.
func TestReusedFinalizeRequestDropsOldViews(t *testing.T) {
	var r FinalizeRequest
	bigFR, smallFR := multiFR(), captureA()
	big := bigFR.Append(nil)
	d := NewDecoder(big)
	r.Decode(&d)
	require.NoError(t, d.Err())
	require.Len(t, r.Segments, 4)
	small := smallFR.Append(nil)
	d.Reset(small)
	r.Decode(&d)
	require.NoError(t, d.Err())
	require.Len(t, r.Segments, 2)
	assert.Equal(t, render(captureA()), render(r))
	for _, s := range r.Segments[len(r.Segments):cap(r.Segments)] {
		assert.Nil(t, s.Content)
	}
	for _, a := range r.Actions[len(r.Actions):cap(r.Actions)] {
		assert.Nil(t, a.Finalize.Args)
		assert.Nil(t, a.Dealloc.Args)
	}

	var sr SharedFinalizeRequest
	shm := sharedMulti()
	d.Reset(shm.Append(nil))
	sr.Decode(&d)
	require.NoError(t, d.Err())
	d.Reset((&SharedFinalizeRequest{}).Append(nil))
	sr.Decode(&d)
	require.NoError(t, d.Err())
	assert.Empty(t, sr.Segments)
	for _, a := range sr.Actions[:cap(sr.Actions)] {
		assert.Nil(t, a.Finalize.Args)
	}
}

// TestGarbageNeverPanics decodes random bytes with every kind. (The fuzz
// targets in fuzz/spsfuzz do this at scale.)
func TestGarbageNeverPanics(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for key, k := range kinds {
		for range 200 {
			n := r.IntN(64)
			in := make([]byte, n)
			for i := range in {
				// Small bytes make plausible counts.
				if r.IntN(2) == 0 {
					in[i] = byte(r.IntN(4))
				} else {
					in[i] = byte(r.Uint32())
				}
			}
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("%s: panic on %x: %v", key, in, p)
					}
				}()
				_, consumed, err := k.decode(in)
				if err == nil && consumed > len(in) {
					t.Fatalf("%s: consumed %d of %d bytes", key, consumed, len(in))
				}
			}()
		}
	}
}
