package sps

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBulkMatchesGeneric compares the memmove paths (bulk_le.go) with the
// portable element-wise paths over many random inputs, for every element
// width and signedness. On hosts or builds without the fast path both sides
// are the portable code and the test still checks the wire format.
func TestBulkMatchesGeneric(t *testing.T) {
	t.Logf("bulk fast path: %v", bulkFast)
	r := rand.New(rand.NewPCG(5, 6))
	testBulk[uint8](t, r)
	testBulk[int8](t, r)
	testBulk[uint16](t, r)
	testBulk[int16](t, r)
	testBulk[uint32](t, r)
	testBulk[int32](t, r)
	testBulk[uint64](t, r)
	testBulk[int64](t, r)
	testBulk[Addr](t, r)
}

func testBulk[T FixedInt](t *testing.T, r *rand.Rand) {
	for n := range 200 {
		v := make([]T, n%67)
		for i := range v {
			v[i] = T(r.Uint64())
		}
		prefix := []byte{0xee, 0xdd}[:n%3%2]
		fast := AppendInts(slices.Clone(prefix), v)
		gen := appendIntsGeneric(AppendCount(slices.Clone(prefix), len(v)), v)
		if !bytes.Equal(fast, gen) {
			t.Fatalf("%T: AppendInts %x != generic %x", v, fast, gen)
		}
		if len(fast)-len(prefix) != SizeInts[T](len(v)) {
			t.Fatalf("%T: SizeInts(%d) = %d, encoded %d", v, len(v), SizeInts[T](len(v)), len(fast)-len(prefix))
		}
		// Decode into a reused slice that already holds elements: they
		// stay, the sequence is appended.
		dst := make([]T, 3, 3+r.IntN(80))
		d := NewDecoder(fast[len(prefix):])
		got := DecodeInts(&d, dst)
		if d.Err() != nil || d.Remaining() != 0 {
			t.Fatalf("%T: DecodeInts: %v, %d left", v, d.Err(), d.Remaining())
		}
		if !slices.Equal(got[:3], dst[:3]) || !slices.Equal(got[3:], v) {
			t.Fatalf("%T: DecodeInts = %v, want 3 zeros then %v", v, got, v)
		}
		genGot := decodeIntsGeneric(dst[:3], fast[len(prefix)+8:], len(v))
		if !slices.Equal(genGot[3:], v) {
			t.Fatalf("%T: generic decode = %v, want %v", v, genGot, v)
		}
	}
	// Failure leaves dst unchanged.
	dst := []T{1, 2}
	d := NewDecoder(AppendU64(nil, 5))
	if got := DecodeInts(&d, dst); len(got) != 2 || d.Err() == nil {
		t.Fatalf("%T: failed decode returned %v, %v", dst, got, d.Err())
	}
}
