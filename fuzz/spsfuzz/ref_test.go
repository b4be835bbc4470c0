package spsfuzz

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/orcgo/orcrt/sps"
)

// TestRefDecoder pins the reference decoder itself on hand-written bytes,
// so that the differential target compares against something known good.
func TestRefDecoder(t *testing.T) {
	tests := []struct {
		name   string
		s      *Schema
		in     []byte
		ok     bool
		render string
		canon  []byte
	}{
		{"u16", U16, []byte{0x34, 0x12, 9}, true, "4660", []byte{0x34, 0x12}},
		{"i32", I32, []byte{0xb3, 0xff, 0xff, 0xff}, true, "-77", nil},
		{"bool canon", Bool, []byte{7}, true, "true", []byte{1}},
		{"group canon", Group, []byte{0xf5}, true, "5", []byte{5}},
		{"string", Bytes, append(sps.AppendU64(nil, 2), 'h', 'i'), true, "x6869", nil},
		{"short string", Bytes, append(sps.AppendU64(nil, 3), 'h', 'i'), false, "", nil},
		{"seq", Seq(U8), append(sps.AppendU64(nil, 2), 1, 2), true, "[1,2]", nil},
		{"optional none", Optional(U64), []byte{0}, true, "none", nil},
		{"error", Error, append([]byte{1}, sps.AppendString(nil, "e")...), true, "err(x65)", nil},
		{"expected err", Expected(U8), append([]byte{0}, sps.AppendString(nil, "e")...), true, "err(x65)", nil},
		{"expected val", Expected(U8), []byte{2, 9}, true, "val(9)", []byte{1, 9}},
		{"empty", Empty, nil, true, "()", nil},
		{"tuple", Tuple(U8, Bool), []byte{1, 0}, true, "(1,false)", nil},
		{"unique", UniqueMap(U8), append(append(sps.AppendU64(nil, 2), sps.AppendString(nil, "a")...), append([]byte{1}, append(sps.AppendString(nil, "a"), 2)...)...), false, "", nil},
		{"i8", I8, []byte{0xfe}, true, "-2", nil},
		{"i16", I16, []byte{0x00, 0x80}, true, "-32768", nil},
		{"absent", Tuple(U8, Absent, U8), []byte{1, 2}, true, "(1,[],2)", nil},
		{"entries in wire order", Entries(U8, Bool), []byte{2, 0, 0, 0, 0, 0, 0, 0, 9, 3, 1, 0}, true, "[(9,true),(1,false)]", []byte{2, 0, 0, 0, 0, 0, 0, 0, 9, 1, 1, 0}},
		{"entries duplicate", Entries(U8, Bool), []byte{2, 0, 0, 0, 0, 0, 0, 0, 9, 1, 9, 0}, false, "", nil},
		{"map sorted", Map(U8, Bool), []byte{2, 0, 0, 0, 0, 0, 0, 0, 9, 1, 1, 0}, true, "[(1,false),(9,true)]", nil},
		{"span", Span(4), append(sps.AppendU64(nil, 8), sps.AppendU64(nil, 16)...), true, "(8,16)", nil},
		{"span not a multiple", Span(4), append(sps.AppendU64(nil, 8), sps.AppendU64(nil, 14)...), false, "", nil},
		{"span inverted", Span(1), append(sps.AppendU64(nil, 8), sps.AppendU64(nil, 7)...), false, "", nil},
		{"span all ones", Span(1), append(sps.AppendU64(nil, 8), sps.AppendU64(nil, ^uint64(0))...), false, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := RefDecode(tc.s, tc.in)
			if r.OK != tc.ok || (tc.ok && r.Render != tc.render) {
				t.Fatalf("got ok=%v %q, want ok=%v %q", r.OK, r.Render, tc.ok, tc.render)
			}
			if !tc.ok {
				return
			}
			canon := tc.canon
			if canon == nil {
				canon = tc.in[:r.Consumed]
			}
			if !bytes.Equal(r.Canon, canon) {
				t.Fatalf("canon %x, want %x", r.Canon, canon)
			}
		})
	}
}

// TestAllocAmplification measures the worst cases the allocation bound of
// FuzzDecode is sized for, on large inputs.
func TestAllocAmplification(t *testing.T) {
	const n = 1 << 16
	nones := append(append([]byte{1}, sps.AppendU64(nil, n)...), make([]byte, n)...)
	syms := sps.AppendCount(nil, n/32)
	for i := range n / 32 {
		syms = sps.AppendAddr(sps.AppendString(syms, fmt.Sprintf("%08d", i)), 1)
	}
	setup := append(append(sps.AppendU64(sps.AppendString(nil, "t"), 4096), sps.AppendCount(nil, 0)...), syms...)
	lookup := append(sps.AppendAddr(nil, 1), sps.AppendCount(nil, n)...)
	for range n {
		lookup = append(sps.AppendU64(lookup, 0), 0)
	}
	cases := []struct {
		shape string
		in    []byte
	}{
		{"ret/resolve", nones},
		{"setup", setup},
		{"args/resolve", lookup},
	}
	for _, tc := range cases {
		var s shape
		for _, x := range shapes {
			if x.name == tc.shape {
				s = x
			}
		}
		if _, _, err := s.decode(tc.in); err != nil {
			t.Fatalf("%s: %v", tc.shape, err)
		}
		per := decodeAllocs(s, tc.in)
		ratio := float64(per) / float64(len(tc.in))
		t.Logf("%s: %d input bytes, %d allocated (%.1fx)", tc.shape, len(tc.in), per, ratio)
		if per > uint64(allocPerByte*len(tc.in)+allocSlack) {
			t.Errorf("%s: %.1fx exceeds the %dx bound", tc.shape, ratio, allocPerByte)
		}
	}
}
