package spsfuzz

import (
	"encoding/hex"
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
	opI32
	opI64
	opBool
	opBytes // SPSSequence<char> / SPSString / SPSSequence<uint8_t>
	opGroup // SPSRemoteAllocGroup
	opEmpty
	opTuple
	opSeq
	opOptional
	opError
	opExpected
	opUniqueMap // SPSSequence<SPSTuple<SPSString, V>> with unique keys
)

// Schema is one SPS type.
type Schema struct {
	op    op
	elems []*Schema
}

// Schema constructors.
var (
	U8    = &Schema{op: opU8}
	U16   = &Schema{op: opU16}
	U32   = &Schema{op: opU32}
	U64   = &Schema{op: opU64}
	I32   = &Schema{op: opI32}
	I64   = &Schema{op: opI64}
	Bool  = &Schema{op: opBool}
	Bytes = &Schema{op: opBytes}
	Group = &Schema{op: opGroup}
	Empty = &Schema{op: opEmpty}
	Error = &Schema{op: opError}
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
func UniqueMap(v *Schema) *Schema { return &Schema{op: opUniqueMap, elems: []*Schema{v}} }

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
	case opSeq, opUniqueMap:
		n, ok := r.uint(8)
		if !ok {
			return false
		}
		var keys []string
		out.WriteByte('[')
		for i := uint64(0); i < n; i++ {
			if i > 0 {
				out.WriteByte(',')
			}
			if s.op == opSeq {
				if !r.value(s.elems[0], out) {
					return false
				}
				continue
			}
			out.WriteByte('(')
			k, ok := r.str(out)
			if !ok {
				return false
			}
			for _, seen := range keys {
				if seen == string(k) {
					return false
				}
			}
			keys = append(keys, string(k))
			out.WriteByte(',')
			if !r.value(s.elems[0], out) {
				return false
			}
			out.WriteByte(')')
		}
		out.WriteByte(']')
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
