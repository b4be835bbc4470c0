package spsfuzz

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/orcgo/orcrt/fuzz/internal/target"
	"github.com/orcgo/orcrt/sps"
)

// The bodies of the fuzz targets: FuzzX in fuzz_test.go runs X under go
// test's engine, fuzz/spsfuzz/libfuzzer under libFuzzer's.

// Allocation bound for decoding an n-byte message: at most
// allocPerByte*n + allocSlack bytes. The per-byte factor covers the
// largest Go-value-to-minimum-wire-size ratio among the shapes (a 1-byte
// "none" in an SPSSequence<SPSOptional<SPSExecutorSymbolDef>> becomes a
// 24-byte Option[SymbolDef]; Setup names are copied and checked for
// duplicates with a set). The slack covers the Decoder, boxing the result
// and the heap statistics' granularity (the runtime counts a whole span
// when a cache is refilled), which is also why the decode is repeated
// allocReps times and the average taken. A decoder that sized anything
// from an unchecked count would blow far past this on the first hostile
// input.
const (
	allocPerByte = 48
	allocSlack   = 16 << 10
	allocReps    = 8
)

// VectorsPath is the golden vectors' file, relative to this package's
// directory.
const VectorsPath = "../../sps/testdata/golden/vectors.txt"

// Seeds returns the seed inputs of every target: each LLVM-generated
// golden vector (read from VectorsPath under dir, this package's
// directory), prefixed with the index of each shape that decodes its
// key, each shape's hand-made seeds, and minimal inputs for every shape.
func Seeds(dir string) ([][]byte, error) {
	if len(shapes) > 256 {
		return nil, fmt.Errorf("%d shapes: the shape byte selects at most 256", len(shapes))
	}
	data, err := os.ReadFile(filepath.Join(dir, VectorsPath))
	if err != nil {
		return nil, err
	}
	var seeds [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	seeded := make([]int, len(shapes))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, h, _ := strings.Cut(line, " ")
		key, _, _ := strings.Cut(name, "/")
		var b []byte
		if h != "-" {
			if b, err = hex.DecodeString(h); err != nil {
				return nil, fmt.Errorf("%s: %v", name, err)
			}
		}
		for i, s := range shapes {
			if slices.Contains(s.golden, key) {
				seeds = append(seeds, append([]byte{byte(i)}, b...))
				seeded[i]++
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for i, s := range shapes {
		if seeded[i] == 0 && len(s.seeds) == 0 {
			return nil, fmt.Errorf("shape %s has neither a golden nor a hand-made seed", s.name)
		}
		for _, b := range s.seeds {
			seeds = append(seeds, append([]byte{byte(i)}, b...))
		}
		seeds = append(seeds,
			[]byte{byte(i)},
			append([]byte{byte(i)}, make([]byte, 17)...),
			append([]byte{byte(i), 1}, bytes.Repeat([]byte{0xff}, 9)...))
	}
	return seeds, nil
}

// allocMark counts Decode's allocation with one heap read per input.
var allocMark target.AllocMark

// decodeAllocs measures the heap bytes one decode of in allocates: the
// average over allocReps decodes, minimized over allocRounds rounds. Other
// goroutines of the fuzzing worker allocate now and then; an allocation
// that the decode itself makes shows up in every round.
func decodeAllocs(s shape, in []byte) uint64 {
	const allocRounds = 3
	best := ^uint64(0)
	for range allocRounds {
		before := target.HeapAllocs()
		for range allocReps {
			s.decode(in)
		}
		best = min(best, (target.HeapAllocs()-before)/allocReps)
	}
	return best
}

// Decode is FuzzDecode: decoding any input as any shape never panics,
// reports errors as *sps.DecodeError within the input, never claims to
// consume more than it was given, and allocates at most
// allocPerByte*len+allocSlack bytes.
func Decode(t target.T, data []byte) {
	s, in, ok := pick(data)
	if !ok {
		return
	}
	// The count since the last Decode's decode, or for the first, the
	// process's: the counter only grows, so it is at least what this
	// decode allocated (allocMark was read before it began; concurrent
	// calls only make the count larger).
	_, n, err := s.decode(in)
	once := allocMark.Since()
	if err != nil {
		de, isDE := err.(*sps.DecodeError)
		if !isDE && !errors.As(err, &de) {
			t.Fatalf("%s: error %T is not a *sps.DecodeError: %v", s.name, err, err)
		}
		if de.Off < 0 || de.Off > len(in) || !strings.HasPrefix(err.Error(), "sps: ") {
			t.Fatalf("%s: bad error %q for %d bytes", s.name, err, len(in))
		}
	} else if n < 0 || n > len(in) {
		t.Fatalf("%s: consumed %d of %d bytes", s.name, n, len(in))
	}
	// That count is cheap but coarse: it includes what the harness and
	// the engine allocated since the last input, the runtime counts small
	// objects a span at a time, and other goroutines allocate too; a
	// decode sized by a hostile count allocates far past the limit at
	// once. Above the limit, count this decode alone, and only if that
	// is above it too, measure carefully.
	limit := uint64(allocPerByte*len(in) + allocSlack)
	if once <= limit {
		return
	}
	before := target.HeapAllocs()
	s.decode(in)
	if target.HeapAllocs()-before <= limit {
		return
	}
	if per := decodeAllocs(s, in); per > limit {
		t.Fatalf("%s: decoding %d bytes allocated %d bytes (limit %d)", s.name, len(in), per, limit)
	}
}

// RoundTrip is FuzzRoundTrip: whatever decodes re-encodes to exactly the
// bytes it consumed, up to the canonicalizations LLVM's decoder itself
// applies: a non-zero bool byte re-encodes as 01, and an
// SPSRemoteAllocGroup keeps only its low four bits. (The reference
// decoder produces that canonical form; for a Go map, whose encoding
// order is unspecified, the encoding must hold the same entries.) Size
// agrees with the encoding (and for the whole messages, sps.Marshal
// produces it in a buffer of exactly that size), and the encoding decodes
// back to the same value. The whole-buffer entry points (sps.Unmarshal,
// DecodeArgs, DecodeResult) reach the same verdict and value as a
// Decoder, and decoded values satisfy their shape's invariants.
func RoundTrip(t target.T, data []byte) {
	s, in, ok := pick(data)
	if !ok {
		return
	}
	v, n, err := s.decode(in)
	if s.generic != nil {
		g, gerr := s.generic(in)
		if !sameError(err, gerr) {
			t.Fatalf("%s: Decoder error %v, whole-buffer decode %v", s.name, err, gerr)
		}
		if err == nil && !reflect.DeepEqual(g, v) {
			t.Fatalf("%s: whole-buffer decode differs:\n got %s\nwant %s", s.name, render(g), render(v))
		}
	}
	if err != nil {
		return
	}
	want := render(v) // before any reuse of the decode's storage
	if s.check != nil {
		if err := s.check(v); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
	enc := s.encode(v)
	ref := RefDecode(s.schema, in)
	if !ref.OK || ref.Consumed != n {
		t.Fatalf("%s: reference decoder disagrees: ok=%v consumed %d vs %d", s.name, ref.OK, ref.Consumed, n)
	}
	if s.unordered {
		if r := RefDecode(s.schema, enc); len(enc) != len(ref.Canon) || !r.OK || r.Consumed != len(enc) || r.Render != ref.Render {
			t.Fatalf("%s: re-encoding %x holds other entries than %x", s.name, enc, ref.Canon)
		}
	} else if !bytes.Equal(enc, ref.Canon) {
		t.Fatalf("%s: re-encoding\n got %x\nwant %x (canonical form of %x)", s.name, enc, ref.Canon, in[:n])
	}
	if sz := s.size(v); sz != len(enc) {
		t.Fatalf("%s: Size %d, encoding %d bytes", s.name, sz, len(enc))
	}
	if s.marshal != nil {
		if m := s.marshal(v); len(m) != len(enc) || cap(m) != len(m) || (!s.unordered && !bytes.Equal(m, enc)) {
			t.Fatalf("%s: Marshal gave %x (cap %d), the encoding is %x", s.name, m, cap(m), enc)
		}
	}
	v2, n2, err := s.decode(enc)
	if err != nil || n2 != len(enc) {
		t.Fatalf("%s: re-decoding the encoding: %v, consumed %d of %d", s.name, err, n2, len(enc))
	}
	if got := render(v2); got != want {
		t.Fatalf("%s: value changed in the round trip:\n got %s\nwant %s", s.name, got, want)
	}
}

// sameError reports whether a and b are both nil or both the same
// *sps.DecodeError (offset, item and reason).
func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	var da, db *sps.DecodeError
	return errors.As(a, &da) && errors.As(b, &db) && *da == *db
}

// Diff is FuzzDiff: package sps and the reference decoder agree on every
// input: both accept or both reject, and on acceptance they consume the
// same bytes and produce the same value.
func Diff(t target.T, data []byte) {
	s, in, ok := pick(data)
	if !ok {
		return
	}
	v, n, err := s.decode(in)
	ref := RefDecode(s.schema, in)
	if (err == nil) != ref.OK {
		t.Fatalf("%s: sps error %v, reference ok=%v (render %q) on %x", s.name, err, ref.OK, ref.Render, in)
	}
	if err != nil {
		return
	}
	if n != ref.Consumed {
		t.Fatalf("%s: sps consumed %d, reference %d", s.name, n, ref.Consumed)
	}
	if got := render(v); got != ref.Render {
		t.Fatalf("%s: values differ on %x:\n  sps %s\n  ref %s", s.name, in, got, ref.Render)
	}
}
