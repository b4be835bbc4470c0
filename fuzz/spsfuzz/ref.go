package spsfuzz

import (
	"bytes"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
)

// The reference decoder: a deliberately simple interpreter over a schema
// (a tree of SPS types), written without looking at package sps. It reads
// one field at a time, never sizes anything from a count (sequences grow
// by appending as elements actually decode), and produces two things: the
// canonical text form of the value (the same form render produces for the
// Go value) and the canonical re-encoding of the bytes it consumed (bools
// written as 0/1, alloc groups masked to their four bits -- the two places
// where LLVM's own decoder canonicalizes).

type op int

const (
	opU8 op = iota
	opU16
	opU32
	opU64
	opI8
	opI16
	opI32
	opI64
	opBool
	opBytes // SPSSequence<char> / SPSString / SPSSequence<uint8_t>
	opGroup // SPSRemoteAllocGroup
	opEmpty
	opAbsent // a Go field with no wire encoding
	opTuple
	opSeq
	opOptional
	opError
	opExpected
	opUniqueMap // SPSSequence<SPSTuple<K, V>> with unique keys, in wire order
	opMap       // the same, decoded into a Go map: rendered sorted
	opSpan      // SPSExecutorAddrRange checked as a span of n-byte elements
)

// Schema is one SPS type.
type Schema struct {
	op    op
	elems []*Schema
	n     uint64 // opSpan: the element size
}

// Schema constructors.
var (
	U8    = &Schema{op: opU8}
	U16   = &Schema{op: opU16}
	U32   = &Schema{op: opU32}
	U64   = &Schema{op: opU64}
	I8    = &Schema{op: opI8}
	I16   = &Schema{op: opI16}
	I32   = &Schema{op: opI32}
	I64   = &Schema{op: opI64}
	Bool  = &Schema{op: opBool}
	Bytes = &Schema{op: opBytes}
	Group = &Schema{op: opGroup}
	Empty = &Schema{op: opEmpty}
	// Absent is a Go field that the wire does not carry (SetupInfo.Values
	// in the LLVM 14 Setup layout): nothing consumed, rendered "[]" as
	// the nil slice is.
	Absent = &Schema{op: opAbsent}
	Error  = &Schema{op: opError}
)

// Tuple is SPSTuple<elems...>.
func Tuple(elems ...*Schema) *Schema { return &Schema{op: opTuple, elems: elems} }

// Seq is SPSSequence<e>.
func Seq(e *Schema) *Schema { return &Schema{op: opSeq, elems: []*Schema{e}} }

// Optional is SPSOptional<e>.
func Optional(e *Schema) *Schema { return &Schema{op: opOptional, elems: []*Schema{e}} }

// Expected is SPSExpected<e>.
func Expected(e *Schema) *Schema { return &Schema{op: opExpected, elems: []*Schema{e}} }

// UniqueMap is a sequence of (string, v) whose keys must be distinct.
func UniqueMap(v *Schema) *Schema { return Entries(Bytes, v) }

// Entries is a sequence of (k, v) whose keys (their canonical bytes) must
// be distinct, rendered in wire order. k must not be zero-size.
func Entries(k, v *Schema) *Schema { return &Schema{op: opUniqueMap, elems: []*Schema{k, v}} }

// Map is Entries decoded into an unordered Go map: the entries render
// sorted by their text, since the Go value keeps no order.
func Map(k, v *Schema) *Schema { return &Schema{op: opMap, elems: []*Schema{k, v}} }

// Span is an SPSExecutorAddrRange (start, end) that must satisfy
// start <= end, neither bound all ones, and end-start a multiple of n.
func Span(n uint64) *Schema { return &Schema{op: opSpan, n: n} }

// RefResult is what the reference decoder makes of an input.
type RefResult struct {
	OK       bool
	Consumed int
	Render   string
	Canon    []byte // canonical encoding of the consumed bytes
}

// RefDecode interprets in as one value of s.
func RefDecode(s *Schema, in []byte) RefResult {
	r := refReader{in: in}
	var out strings.Builder
	if !r.value(s, &out) {
		return RefResult{}
	}
	return RefResult{OK: true, Consumed: r.off, Render: out.String(), Canon: r.canon}
}

type refReader struct {
	in    []byte
	off   int
	canon []byte
}

func (r *refReader) bytes(n uint64) ([]byte, bool) {
	if n > uint64(len(r.in)-r.off) {
		return nil, false
	}
	b := r.in[r.off : r.off+int(n)]
	r.off += int(n)
	r.canon = append(r.canon, b...)
	return b, true
}

func (r *refReader) uint(n int) (uint64, bool) {
	b, ok := r.bytes(uint64(n))
	if !ok {
		return 0, false
	}
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v, true
}

func (r *refReader) flag() (bool, bool) {
	b, ok := r.bytes(1)
	if !ok {
		return false, false
	}
	v := b[0] != 0
	r.canon[len(r.canon)-1] = 0
	if v {
		r.canon[len(r.canon)-1] = 1
	}
	return v, true
}

func (r *refReader) str(out *strings.Builder) ([]byte, bool) {
	n, ok := r.uint(8)
	if !ok {
		return nil, false
	}
	b, ok := r.bytes(n)
	if !ok {
		return nil, false
	}
	out.WriteByte('x')
	out.WriteString(hex.EncodeToString(b))
	return b, true
}

func (r *refReader) value(s *Schema, out *strings.Builder) bool {
	switch s.op {
	case opU8, opU16, opU32, opU64:
		size := 8
		switch s.op {
		case opU8:
			size = 1
		case opU16:
			size = 2
		case opU32:
			size = 4
		}
		v, ok := r.uint(size)
		out.WriteString(strconv.FormatUint(v, 10))
		return ok
	case opI8:
		v, ok := r.uint(1)
		out.WriteString(strconv.FormatInt(int64(int8(uint8(v))), 10))
		return ok
	case opI16:
		v, ok := r.uint(2)
		out.WriteString(strconv.FormatInt(int64(int16(uint16(v))), 10))
		return ok
	case opI32:
		v, ok := r.uint(4)
		out.WriteString(strconv.FormatInt(int64(int32(uint32(v))), 10))
		return ok
	case opI64:
		v, ok := r.uint(8)
		out.WriteString(strconv.FormatInt(int64(v), 10))
		return ok
	case opBool:
		v, ok := r.flag()
		out.WriteString(strconv.FormatBool(v))
		return ok
	case opBytes:
		_, ok := r.str(out)
		return ok
	case opGroup:
		v, ok := r.uint(1)
		if ok {
			r.canon[len(r.canon)-1] &= 0x0f
		}
		out.WriteString(strconv.FormatUint(v&0x0f, 10))
		return ok
	case opEmpty:
		out.WriteString("()")
		return true
	case opAbsent:
		out.WriteString("[]")
		return true
	case opTuple:
		out.WriteByte('(')
		for i, e := range s.elems {
			if i > 0 {
				out.WriteByte(',')
			}
			if !r.value(e, out) {
				return false
			}
		}
		out.WriteByte(')')
		return true
	case opSeq:
		n, ok := r.uint(8)
		if !ok {
			return false
		}
		out.WriteByte('[')
		for i := uint64(0); i < n; i++ {
			if i > 0 {
				out.WriteByte(',')
			}
			if !r.value(s.elems[0], out) {
				return false
			}
		}
		out.WriteByte(']')
		return true
	case opUniqueMap, opMap:
		n, ok := r.uint(8)
		if !ok {
			return false
		}
		var keys [][2]int // each key's canonical bytes: r.canon[k[0]:k[1]]
		var entries []string
		out.WriteByte('[')
		for i := uint64(0); i < n; i++ {
			if s.op == opUniqueMap {
				if i > 0 {
					out.WriteByte(',')
				}
				if !r.entry(s, out, &keys) {
					return false
				}
				continue
			}
			var e strings.Builder // rendered alone, to be sorted
			if !r.entry(s, &e, &keys) {
				return false
			}
			entries = append(entries, e.String())
		}
		slices.Sort(entries)
		out.WriteString(strings.Join(entries, ","))
		out.WriteByte(']')
		return true
	case opSpan:
		start, ok1 := r.uint(8)
		end, ok2 := r.uint(8)
		if !ok1 || !ok2 || end < start || start == ^uint64(0) || end == ^uint64(0) || (end-start)%s.n != 0 {
			return false
		}
		out.WriteString("(" + strconv.FormatUint(start, 10) + "," + strconv.FormatUint(end, 10) + ")")
		return true
	case opOptional:
		present, ok := r.flag()
		if !ok {
			return false
		}
		if !present {
			out.WriteString("none")
			return true
		}
		out.WriteString("some(")
		ok = r.value(s.elems[0], out)
		out.WriteByte(')')
		return ok
	case opError:
		failed, ok := r.flag()
		if !ok {
			return false
		}
		if !failed {
			out.WriteString("ok")
			return true
		}
		out.WriteString("err(")
		_, ok = r.str(out)
		out.WriteByte(')')
		return ok
	case opExpected:
		hasValue, ok := r.flag()
		if !ok {
			return false
		}
		if hasValue {
			out.WriteString("val(")
			ok = r.value(s.elems[0], out)
		} else {
			out.WriteString("err(")
			_, ok = r.str(out)
		}
		out.WriteByte(')')
		return ok
	}
	panic("spsfuzz: unknown schema op")
}

// entry reads one (key, value) of a map into out, failing on a key whose
// canonical bytes equal an earlier one's.
func (r *refReader) entry(s *Schema, out *strings.Builder, keys *[][2]int) bool {
	out.WriteByte('(')
	start := len(r.canon)
	if !r.value(s.elems[0], out) {
		return false
	}
	k := r.canon[start:]
	for _, o := range *keys {
		if bytes.Equal(r.canon[o[0]:o[1]], k) {
			return false
		}
	}
	*keys = append(*keys, [2]int{start, len(r.canon)})
	out.WriteByte(',')
	if !r.value(s.elems[1], out) {
		return false
	}
	out.WriteByte(')')
	return true
}
