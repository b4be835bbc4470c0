package spsfuzz

import (
	"errors"
	"fmt"
	"strings"

	"github.com/orcgo/orcrt/sps"
)

// A shape is one top-level message: its schema for the reference decoder,
// and the sps code that decodes and re-encodes it.
type shape struct {
	name   string
	schema *Schema
	decode func(in []byte) (v any, consumed int, err error)
	encode func(v any) []byte
	size   func(v any) int
	// generic decodes the same input through the entry points that take
	// a whole buffer and use a pooled Decoder (sps.Unmarshal,
	// FuncN.DecodeArgs, FuncN.DecodeResult): the same verdict and value
	// as decode. Nil for shapes that decode into reused storage.
	generic func(in []byte) (any, error)
	// marshal encodes through sps.Marshal: the same bytes as encode, in a
	// buffer of exactly the encoded size (messageShape only).
	marshal func(v any) []byte
	// check states invariants of a decoded value (nil: none beyond the
	// round trip).
	check func(v any) error
	// unordered: the value holds a Go map, whose encoding order is
	// unspecified; the round trip compares entries rather than bytes.
	unordered bool
	golden    []string // keys of golden vectors that are seeds for this shape
	seeds     [][]byte // hand-made seeds (messages, without the shape byte)
}

func (s shape) checked(f func(v any) error) shape { s.check = f; return s }
func (s shape) seeded(b ...[]byte) shape          { s.seeds = append(s.seeds, b...); return s }
func (s shape) unorderedMap() shape               { s.unordered = true; return s }

// argList is a decoded argument list of two or more arguments.
type argList []any

// done ends a shape's decode: the consumed count and the error, after
// checking that the Decoder's accounts of the input agree (offset plus
// remaining is the input; the rest is a view of its unread tail).
func done(d *sps.Decoder, in []byte) (int, error) {
	n, rest := d.Offset(), d.Rest()
	if n+len(rest) != len(in) || d.Remaining() != len(rest) || (len(rest) > 0 && &rest[0] != &in[n]) {
		panic(fmt.Sprintf("spsfuzz: decoder at offset %d of %d: %d remaining, %d rest bytes", n, len(in), d.Remaining(), len(rest)))
	}
	return n, d.Err()
}

func codecShape[T any](name string, s *Schema, c sps.Codec[T], golden ...string) shape {
	return shape{
		name:   name,
		schema: s,
		decode: func(in []byte) (any, int, error) {
			d := sps.NewDecoder(in)
			v := c.Decode(&d)
			n, err := done(&d, in)
			return v, n, err
		},
		encode: func(v any) []byte { return c.Append(nil, as[T](v)) },
		size:   func(v any) int { return c.Size(as[T](v)) },
		golden: golden,
	}
}

// messageShape is codecShape for a whole message that the executor
// encodes with sps.Marshal and decodes with sps.Unmarshal (Setup, Hangup),
// which the round trip compares with the Decoder and Append paths. (For
// other codecs the comparison would add little and, per type, coverage
// counters that slow every fuzzing input.)
func messageShape[T any](name string, s *Schema, c sps.Codec[T], golden ...string) shape {
	sh := codecShape(name, s, c, golden...)
	sh.generic = func(in []byte) (any, error) { return sps.Unmarshal(c, in) }
	sh.marshal = func(v any) []byte { return sps.Marshal(c, as[T](v)) }
	return sh
}

func args0[R any](name string, f sps.Func0[R], golden ...string) shape {
	return shape{
		name:    name,
		schema:  Empty,
		decode:  func(in []byte) (any, int, error) { return struct{}{}, 0, f.DecodeArgs(in) },
		encode:  func(any) []byte { return f.AppendArgs(nil) },
		size:    func(any) int { return f.ArgsSize() },
		generic: func(in []byte) (any, error) { return struct{}{}, f.DecodeArgs(in) },
		golden:  golden,
	}
}

func args1[A1, R any](name string, s *Schema, f sps.Func1[A1, R], golden ...string) shape {
	return shape{
		name:   name,
		schema: s,
		decode: func(in []byte) (any, int, error) {
			d := sps.NewDecoder(in)
			a1 := f.DecodeArgsFrom(&d)
			n, err := done(&d, in)
			return a1, n, err
		},
		encode:  func(v any) []byte { return f.AppendArgs(nil, as[A1](v)) },
		size:    func(v any) int { return f.ArgsSize(as[A1](v)) },
		generic: func(in []byte) (any, error) { return f.DecodeArgs(in) },
		golden:  golden,
	}
}

func args2[A1, A2, R any](name string, s *Schema, f sps.Func2[A1, A2, R], golden ...string) shape {
	return shape{
		name:   name,
		schema: s,
		decode: func(in []byte) (any, int, error) {
			d := sps.NewDecoder(in)
			a1, a2 := f.DecodeArgsFrom(&d)
			n, err := done(&d, in)
			return argList{a1, a2}, n, err
		},
		encode: func(v any) []byte { a := v.(argList); return f.AppendArgs(nil, as[A1](a[0]), as[A2](a[1])) },
		size:   func(v any) int { a := v.(argList); return f.ArgsSize(as[A1](a[0]), as[A2](a[1])) },
		generic: func(in []byte) (any, error) {
			a1, a2, err := f.DecodeArgs(in)
			return argList{a1, a2}, err
		},
		golden: golden,
	}
}

func args3[A1, A2, A3, R any](name string, s *Schema, f sps.Func3[A1, A2, A3, R], golden ...string) shape {
	return shape{
		name:   name,
		schema: s,
		decode: func(in []byte) (any, int, error) {
			d := sps.NewDecoder(in)
			a1, a2, a3 := f.DecodeArgsFrom(&d)
			n, err := done(&d, in)
			return argList{a1, a2, a3}, n, err
		},
		encode: func(v any) []byte {
			a := v.(argList)
			return f.AppendArgs(nil, as[A1](a[0]), as[A2](a[1]), as[A3](a[2]))
		},
		size: func(v any) int {
			a := v.(argList)
			return f.ArgsSize(as[A1](a[0]), as[A2](a[1]), as[A3](a[2]))
		},
		generic: func(in []byte) (any, error) {
			a1, a2, a3, err := f.DecodeArgs(in)
			return argList{a1, a2, a3}, err
		},
		golden: golden,
	}
}

// resultSig is the result half of a FuncN signature.
type resultSig[R any] interface {
	ResultSize(r R) int
	AppendResult(b []byte, r R) []byte
	DecodeResult(b []byte) (R, error)
}

// ret is the result of the signature f, whose Ret codec is c (which
// decodes with the consumed count DecodeResult does not report).
func ret[R any](name string, s *Schema, f resultSig[R], c sps.Codec[R], golden ...string) shape {
	return shape{
		name:   name,
		schema: s,
		decode: func(in []byte) (any, int, error) {
			d := sps.NewDecoder(in)
			r := c.Decode(&d)
			n, err := done(&d, in)
			return r, n, err
		},
		encode:  func(v any) []byte { return f.AppendResult(nil, as[R](v)) },
		size:    func(v any) int { return f.ResultSize(as[R](v)) },
		generic: func(in []byte) (any, error) { return f.DecodeResult(in) },
		golden:  golden,
	}
}

// reused decodes with dec into storage reused across inputs and returns
// it (a bulk Decoder method, or a request's Decode method).
func reused[T any](name string, s *Schema, dec func(d *sps.Decoder) T, enc func(T) []byte, size func(T) int, golden ...string) shape {
	return shape{
		name:   name,
		schema: s,
		decode: func(in []byte) (any, int, error) {
			d := sps.NewDecoder(in)
			v := dec(&d)
			n, err := done(&d, in)
			return v, n, err
		},
		encode: func(v any) []byte { return enc(v.(T)) },
		size:   func(v any) int { return size(v.(T)) },
		golden: golden,
	}
}

// as is v.(T) mapping a nil interface (a nil error) to T's zero value.
func as[T any](v any) T {
	if v == nil {
		var z T
		return z
	}
	return v.(T)
}

// Invariants of decoded values.

// checkSetup: Validate and the decoder agree. A decoded SetupInfo
// validates; with its first bootstrap value or symbol repeated, it does
// not, and its encoding no longer decodes.
func checkSetup(v any) error {
	s := v.(sps.SetupInfo)
	if err := s.Validate(); err != nil {
		return err
	}
	for i := range 2 {
		d := s
		switch {
		case i == 0 && len(s.Values) > 0:
			d.Values = append(s.Values[:len(s.Values):len(s.Values)], s.Values[0])
		case i == 1 && len(s.Symbols) > 0:
			d.Symbols = append(s.Symbols[:len(s.Symbols):len(s.Symbols)], s.Symbols[0])
		default:
			continue
		}
		if d.Validate() == nil {
			return fmt.Errorf("SetupInfo.Validate accepts a repeated name (%d values, %d symbols)", len(d.Values), len(d.Symbols))
		}
		_, err := sps.Unmarshal(sps.SetupInfoCodec, sps.Marshal(sps.SetupInfoCodec, d))
		if de := (*sps.DecodeError)(nil); !errors.As(err, &de) || !strings.HasPrefix(de.Reason, "duplicate key ") {
			return fmt.Errorf("a Setup payload with a repeated name decodes with error %v", err)
		}
	}
	return nil
}

// checkNoMap: the LLVM 14 Setup layout leaves Values nil.
func checkNoMap(v any) error {
	if v.(sps.SetupInfo).Values != nil {
		return errors.New("the Setup layout without a bootstrap map decoded Values")
	}
	return nil
}

// requestRecord is the element of the seq/request-records shape.
type requestRecord = sps.Triple[sps.Pair[sps.FinalizeRequest, sps.SharedFinalizeRequest],
	sps.Pair[sps.SetupInfo, sps.SetupInfo], sps.Pair[map[uint32]bool, []sps.Pair[sps.Addr, string]]]

// checkRequests: each record's Setup payloads satisfy checkSetup and
// checkNoMap.
func checkRequests(v any) error {
	for _, r := range v.([]requestRecord) {
		if err := checkSetup(r.Second.First); err != nil {
			return err
		}
		if err := checkNoMap(r.Second.Second); err != nil {
			return err
		}
	}
	return nil
}

// checkRange: the AddrRange methods agree with each other on a decoded
// (possibly inverted) range.
func checkRange(v any) error {
	r := v.(sps.AddrRange)
	empty := r.Empty()
	switch {
	case (r.Size() == 0) != empty, r.Contains(r.Start) == empty, r.Contains(r.End),
		r.Overlaps(r) == empty, r.ContainsRange(r) != (r.Start <= r.End),
		!empty && (r.Size() != uint64(r.End-r.Start) || !r.Contains(r.End-1)):
		return fmt.Errorf("range %#x-%#x: Size %d, Empty %t, inconsistent Contains/Overlaps", uint64(r.Start), uint64(r.End), r.Size(), empty)
	case !strings.HasPrefix(r.String(), "[0x"):
		return fmt.Errorf("range %#x-%#x: String %q", uint64(r.Start), uint64(r.End), r.String())
	}
	return nil
}

// checkGroup: a decoded group keeps only the four defined bits; Prot
// keeps the protection ones; String spells them.
func checkGroup(v any) error {
	g := v.(sps.AllocGroup)
	s := g.String()
	want := "---"
	for i, c := range "RWX" {
		if g&(1<<i) != 0 {
			want = want[:i] + string(c) + want[i+1:]
		}
	}
	if g&sps.FinalizeLifetime != 0 {
		want += "+finalize-lifetime"
	}
	if g.Prot()|g&sps.FinalizeLifetime != g || g.Prot()&sps.FinalizeLifetime != 0 || s != want {
		return fmt.Errorf("group %#x: Prot %#x, String %q, want %q", uint8(g), uint8(g.Prot()), s, want)
	}
	return nil
}

// checkOption: a present value is what Some builds; an absent one is
// the zero Option.
func checkOption(v any) error {
	o := v.(sps.Option[uint64])
	if (o.OK && sps.Some(o.Value) != o) || (!o.OK && o != sps.Option[uint64]{}) {
		return errors.New("option differs from Some(value) / the zero Option")
	}
	return nil
}

// primValues is one of each fixed-size scalar, read with the Decoder's
// own methods and written with the Append functions (no codecs).
type primValues struct {
	U8   uint8
	I8   int8
	U16  uint16
	I16  int16
	U32  uint32
	I32  int32
	U64  uint64
	I64  int64
	Bool bool
	Addr sps.Addr
}

var primsShape = shape{
	name:   "prims",
	schema: Tuple(U8, I8, U16, I16, U32, I32, U64, I64, Bool, U64),
	decode: func(in []byte) (any, int, error) {
		d := sps.NewDecoder(in)
		v := primValues{d.U8(), d.I8(), d.U16(), d.I16(), d.U32(), d.I32(), d.U64(), d.I64(), d.Bool(), d.Addr()}
		n, err := done(&d, in)
		return v, n, err
	},
	encode: func(v any) []byte {
		p := v.(primValues)
		b := sps.AppendI8(sps.AppendU8(nil, p.U8), p.I8)
		b = sps.AppendI16(sps.AppendU16(b, p.U16), p.I16)
		b = sps.AppendI32(sps.AppendU32(b, p.U32), p.I32)
		b = sps.AppendI64(sps.AppendU64(b, p.U64), p.I64)
		return sps.AppendAddr(sps.AppendBool(b, p.Bool), p.Addr)
	},
	size:  func(any) int { return 1 + 1 + 2 + 2 + 4 + 4 + 8 + 8 + 1 + 8 },
	seeds: append(prefixes(prims, len(prims), 0, 1, 2, 4, 6, 10, 14, 22, 30, 31, 38), primsCanon),
}

// rawBytesShape reads an SPSSequence<char> as a u64 length and Raw: a
// length above MaxInt converts to a negative int, which Raw rejects.
var rawBytesShape = shape{
	name:   "bytes/raw",
	schema: Bytes,
	decode: func(in []byte) (any, int, error) {
		d := sps.NewDecoder(in)
		l := d.U64()
		b := d.Raw(int(l), "byte sequence")
		n, err := done(&d, in)
		return b, n, err
	},
	encode: func(v any) []byte { return sps.AppendBytes(nil, v.([]byte)) },
	size:   func(v any) int { return sps.SizeBytes(len(v.([]byte))) },
	golden: []string{"bytes", "bytesview", "string"},
	seeds:  [][]byte{u64(1 << 63), u64(allOnes), cat(u64(4), raw(1, 2, 3))},
}

// func0 is a signature of no arguments, SPSExpected<SPSExecutorAddr>()
// (package sps declares none; rt's Handle0 and Call0 take such a Func0).
var func0 = sps.Func0[sps.Expected[sps.Addr]]{Ret: sps.ExpectedOf(sps.AddrCodec)}

// Schemas of the ORC types, written from docs/protocol.md §2.
var (
	addrRange   = Tuple(U64, U64)
	symbolDef   = Tuple(U64, Tuple(U8, U8))
	lookupElem  = Tuple(Bytes, Bool)
	call        = Tuple(U64, Bytes)
	actionPair  = Tuple(call, call)
	segment     = Tuple(Group, U64, U64, Bytes)
	sharedSeg   = Tuple(Group, U64, U64)
	finalize    = Tuple(Seq(segment), Seq(actionPair))
	sharedFinal = Tuple(Seq(sharedSeg), Seq(actionPair))
	setup       = Tuple(Bytes, U64, UniqueMap(Bytes), UniqueMap(U64))
	setupNoMap  = Tuple(Bytes, U64, Absent, UniqueMap(U64)) // no Values on the wire
	lookupArgs  = Tuple(U64, U64, Seq(lookupElem))

	scalarRec  = Tuple(Tuple(Bool, I8, I16), Tuple(I32, I64, U64), Tuple(Empty, Error, Expected(U32)))
	orcRec     = Tuple(Tuple(Seq(Bytes), Tuple(U8, U8), symbolDef), Tuple(call, actionPair, Group), Tuple(segment, sharedSeg, Span(8)))
	requestRec = Tuple(Tuple(finalize, sharedFinal), Tuple(setup, setupNoMap), Tuple(Map(U32, Bool), Entries(U64, Bytes)))
)

// reusedFinalize decodes with (*FinalizeRequest).Decode into a request
// reused across inputs, the way the memory manager's hot path does;
// reusedShared likewise for the shared-memory mapper's request.
var (
	reusedFinalize sps.FinalizeRequest
	reusedShared   sps.SharedFinalizeRequest
)

// shapes lists every top-level message; the first input byte selects one.
// Checked-in seeds start with the index: append new shapes at the end.
var shapes = []shape{
	messageShape("setup", setup, sps.SetupInfoCodec, "setup").checked(checkSetup).
		seeded(setupMsg(false, manyNames()...), setupMsg(false, manyNames()[:17]...)),
	reused("finalize/reused", finalize,
		func(d *sps.Decoder) sps.FinalizeRequest { reusedFinalize.Decode(d); return reusedFinalize },
		func(r sps.FinalizeRequest) []byte { return r.Append(nil) },
		func(r sps.FinalizeRequest) int { return r.Size() }, "finalize").seeded(segFallback),
	codecShape("finalize/codec", finalize, sps.FinalizeRequestCodec, "finalize").seeded(segFallback),
	codecShape("sharedfinalize", sharedFinal, sps.SharedFinalizeRequestCodec, "sharedfinalize"),
	messageShape("hangup", Error, sps.ErrorCodec, "error"),
	args2("args/reserve", Tuple(U64, U64), sps.MemoryManagerReserve, "args-reserve", "args-shm-reserve"),
	ret("ret/expected-addr", Expected(U64), sps.MemoryManagerReserve, sps.MemoryManagerReserve.Ret,
		"ret-reserve", "ret-initialize", "ret-open", "ret-symbol-lookup", "ret-shm-initialize", "expected-addr"),
	args2("args/initialize", Tuple(U64, finalize), sps.MemoryManagerInitialize, "args-initialize"),
	args2("args/deinitialize", Tuple(U64, Seq(U64)), sps.MemoryManagerDeinitialize,
		"args-deinitialize", "args-release", "args-shm-deinitialize", "args-shm-release"),
	ret("ret/error", Error, sps.MemoryManagerRelease, sps.MemoryManagerRelease.Ret, "ret-deinitialize", "ret-release", "ret-action"),
	args3("args/open", Tuple(U64, Bytes, U64), sps.DylibManagerOpen, "args-open"),
	args2("args/resolve", Tuple(U64, Seq(lookupElem)), sps.DylibManagerResolve, "args-resolve"),
	ret("ret/resolve", Expected(Seq(Optional(symbolDef))), sps.DylibManagerResolve, sps.DylibManagerResolve.Ret, "ret-resolve"),
	args1("args/write-uint8s", Seq(Tuple(U64, U8)), sps.WriteUInt8s, "args-write-uint8s"),
	args1("args/write-uint16s", Seq(Tuple(U64, U16)), sps.WriteUInt16s, "args-write-uint16s"),
	args1("args/write-uint32s", Seq(Tuple(U64, U32)), sps.WriteUInt32s, "args-write-uint32s"),
	args1("args/write-uint64s", Seq(Tuple(U64, U64)), sps.WriteUInt64s, "args-write-uint64s"),
	args1("args/write-pointers", Seq(Tuple(U64, U64)), sps.WritePointers, "args-write-pointers"),
	args1("args/write-buffers", Seq(Tuple(U64, Bytes)), sps.WriteBuffers, "args-write-buffers"),
	ret("ret/void", Empty, sps.WriteUInt8s, sps.WriteUInt8s.Ret, "ret-write"),
	args1("args/read", Seq(U64), sps.ReadUInt32s,
		"args-read-uint8s", "args-read-uint16s", "args-read-uint32s", "args-read-uint64s",
		"args-read-pointers", "args-read-strings"),
	args1("args/read-buffers", Seq(addrRange), sps.ReadBuffers, "args-read-buffers"),
	ret("ret/read-uint8s", Bytes, sps.ReadUInt8s, sps.ReadUInt8s.Ret, "ret-read-uint8s"),
	ret("ret/read-uint16s", Seq(U16), sps.ReadUInt16s, sps.ReadUInt16s.Ret, "ret-read-uint16s"),
	ret("ret/read-uint32s", Seq(U32), sps.ReadUInt32s, sps.ReadUInt32s.Ret, "ret-read-uint32s"),
	ret("ret/read-uint64s", Seq(U64), sps.ReadUInt64s, sps.ReadUInt64s.Ret, "ret-read-uint64s"),
	ret("ret/read-pointers", Seq(U64), sps.ReadPointers, sps.ReadPointers.Ret, "ret-read-pointers"),
	ret("ret/read-buffers", Seq(Bytes), sps.ReadBuffers, sps.ReadBuffers.Ret, "ret-read-buffers"),
	ret("ret/read-strings", Seq(Bytes), sps.ReadStrings, sps.ReadStrings.Ret, "ret-read-strings").
		seeded(cat(u64(2), str("a"), u64(allOnes))), // the second string's length is past the input
	args2("args/run-as-main", Tuple(U64, Seq(Bytes)), sps.RunAsMain, "args-run-as-main"),
	ret("ret/run-as-main", I64, sps.RunAsMain, sps.RunAsMain.Ret, "ret-run-as-main"),
	args1("args/run-as-void", U64, sps.RunAsVoidFunction, "args-run-as-void"),
	ret("ret/i32", I32, sps.RunAsVoidFunction, sps.RunAsVoidFunction.Ret, "ret-run-as-void", "ret-run-as-int"),
	args2("args/run-as-int", Tuple(U64, I32), sps.RunAsIntFunction, "args-run-as-int"),
	args1("args/ehframe", addrRange, sps.RegisterEHFrameAction, "args-register-ehframe", "args-deregister-ehframe"),
	args2("args/gdb", Tuple(addrRange, Bool), sps.RegisterJITLoaderGDBAction, "args-register-gdb"),
	ret("ret/shm-reserve", Expected(Tuple(U64, Bytes)), sps.SharedMemoryReserve, sps.SharedMemoryReserve.Ret, "ret-shm-reserve"),
	args3("args/shm-initialize", Tuple(U64, U64, sharedFinal), sps.SharedMemoryInitialize, "args-shm-initialize"),
	args1("args/push-initializers", U64, sps.ELFNixPushInitializers, "args-push-initializers"),
	ret("ret/push-initializers", Expected(Seq(Tuple(U64, Seq(U64)))), sps.ELFNixPushInitializers, sps.ELFNixPushInitializers.Ret, "ret-push-initializers"),
	args2("args/symbol-lookup", Tuple(U64, Bytes), sps.ELFNixSymbolLookup, "args-symbol-lookup"),
	args1("args/lazy-resolve", U64, sps.LazyResolve, "args-lazy-resolve"),
	args1("args/perf-impl", Tuple(
		Seq(Tuple(Tuple(U32, U32), U32, U32, U64, U64, U64, U64, Bytes)),
		Seq(Tuple(Tuple(U32, U32), U64, Seq(Tuple(U64, U32, U32, Bytes)))),
		Tuple(Tuple(U32, U32), U64, U64, U64, U64, Bytes, U64)), sps.RegisterPerfImpl, "args-perf-impl"),
	ret("ret/lazy-resolve", Expected(symbolDef), sps.LazyResolve, sps.LazyResolve.Ret, "ret-lazy-resolve"),
	codecShape("map-entries", UniqueMap(U64), sps.MapEntriesOf(sps.String, sps.U64), "map-string-u64").
		seeded(stringMap(manyNames()...), stringMap(manyNames()[:17]...), stringMap(longKey, "b", longKey),
			cat(u64(1), str("abcdefghij"))),
	reused("u32s/reused", Seq(U32),
		func(d *sps.Decoder) []uint32 { reusedU32s = d.U32s(reusedU32s[:0]); return reusedU32s },
		func(v []uint32) []byte { return sps.AppendU32s(nil, v) },
		func(v []uint32) int { return sps.SizeInts[uint32](len(v)) }, "seq-u32"),

	// The LLVM 14-19 signatures (sps/llvm14.go), the one Func3 result of
	// LLVM 22, and a Func0.
	args2("args/finalize-llvm14", Tuple(U64, finalize), sps.MemoryManagerFinalize, "args-initialize"),
	ret("ret/finalize-llvm14", Error, sps.MemoryManagerFinalize, sps.MemoryManagerFinalize.Ret, "ret-deinitialize", "error"),
	args2("args/deallocate-llvm14", Tuple(U64, Seq(U64)), sps.MemoryManagerDeallocate, "args-release"),
	args3("args/lookup-llvm14", lookupArgs, sps.DylibManagerLookupAddrs).seeded(
		cat(u64(seedInst), u64(seedA1), u64(2), str("main"), raw(1), str("_ZN3foo3barEv"), raw(0)),
		cat(u64(seedInst), u64(seedA1), u64(1), str("main"))),
	ret("ret/lookup-addrs-llvm14", Expected(Seq(U64)), sps.DylibManagerLookupAddrs, sps.DylibManagerLookupAddrs.Ret).seeded(
		cat(raw(1), u64(2), u64(seedA1), u64(0)), cat(raw(0), str("Symbols not found: [ foo ]")), cat(raw(1), u64(2), u64(seedA1))),
	ret("ret/lookup-defs-llvm19", Expected(Seq(symbolDef)), sps.DylibManagerLookupDefs, sps.DylibManagerLookupDefs.Ret).seeded(
		cat(raw(1), u64(2), u64(seedA1), raw(0x30, 0), u64(seedA2), raw(0x10, 1)), cat(raw(0), str("no such dylib"))),
	ret("ret/open", Expected(U64), sps.DylibManagerOpen, sps.DylibManagerOpen.Ret, "ret-open"),
	args0("args/func0", func0, "empty"),
	ret("ret/func0", Expected(U64), func0, func0.Ret, "expected-addr"),

	// Codecs decoded alone, seeded with LLVM's golden vectors of each.
	codecShape("i8", I8, sps.I8, "i8"),
	codecShape("i16", I16, sps.I16, "i16"),
	codecShape("size", U64, sps.Size, "size"),
	codecShape("tuple2", Tuple(I32, Bytes), sps.Tuple2(sps.I32, sps.String), "tuple2"),
	codecShape("tuple3", Tuple(I32, Bytes, Bool), sps.Tuple3(sps.I32, sps.String, sps.Bool), "tuple3"),
	codecShape("optional-u64", Optional(U64), sps.Optional(sps.U64), "optional-u64").checked(checkOption),
	codecShape("optional-string", Optional(Bytes), sps.Optional(sps.String), "optional-string"),
	codecShape("expected-u32", Expected(U32), sps.ExpectedOf(sps.U32), "expected-u32"),
	codecShape("bytes/copy", Bytes, sps.BytesCopy, "bytes", "bytesview", "string"),
	rawBytesShape,
	codecShape("map-string-u64", Map(Bytes, U64), sps.MapOf(sps.String, sps.U64), "map-string-u64").
		unorderedMap().seeded(stringMap(longKey, "b", longKey), stringMap("a", "b", "a"), cat(u64(1), str("abcdefghij"))),
	codecShape("map-string-bytes", Map(Bytes, Bytes), sps.MapOf(sps.String, sps.BytesCopy), "map-string-bytes").
		unorderedMap().seeded(cat(u64(2), str("a"), str(""), str("b"), str("\x01\x02"))),
	codecShape("map-string-bytes/entries", UniqueMap(Bytes), sps.MapEntriesOf(sps.String, sps.BytesView), "map-string-bytes"),
	codecShape("jitsymbolflags", Tuple(U8, U8), sps.SymbolFlagsCodec, "jitsymbolflags"),
	codecShape("symboldef", symbolDef, sps.SymbolDefCodec, "symboldef"),
	codecShape("wrappercall", call, sps.WrapperCallCodec, "wrappercall"),
	codecShape("actionpair", actionPair, sps.ActionPairCodec, "actionpair"),
	codecShape("allocgroup", Group, sps.AllocGroupCodec, "allocgroup").checked(checkGroup),
	codecShape("segfinalize", segment, sps.SegFinalizeCodec, "segfinalize"),
	codecShape("sharedseg", sharedSeg, sps.SharedSegFinalizeCodec, "sharedseg"),
	codecShape("addrrange", addrRange, sps.AddrRangeCodec, "addrrange").checked(checkRange),
	codecShape("span/u32", Span(4), sps.SpanRangeCodec(4), "addrrange").checked(checkRange).
		seeded(cat(u64(0x1000), u64(0x1003)), cat(u64(0x1000), u64(0x1010))),
	codecShape("span/bytes", Span(1), sps.SpanRangeCodec(0), "addrrange").checked(checkRange).
		seeded(cat(u64(allOnes-1), u64(allOnes)), cat(u64(7), u64(8))),
	reused("sharedfinalize/reused", sharedFinal,
		func(d *sps.Decoder) sps.SharedFinalizeRequest { reusedShared.Decode(d); return reusedShared },
		func(r sps.SharedFinalizeRequest) []byte { return r.Append(nil) },
		func(r sps.SharedFinalizeRequest) int { return r.Size() }, "sharedfinalize").seeded(sharedMsg()),
	codecShape("setup/llvm14", setupNoMap, sps.SetupInfoNoMapCodec, "setup").checked(checkNoMap).
		seeded(setupMsg(true, "__llvm_orc_SimpleRemoteEPC_dispatch_fn"), setupMsg(true, manyNames()...)),
	primsShape,

	// Sequences: the bulk integer paths into reused slices, the other
	// integer element types.
	reused("u8s/reused", Bytes,
		func(d *sps.Decoder) []uint8 { reusedU8s = d.U8s(reusedU8s[:0]); return reusedU8s },
		func(v []uint8) []byte { return sps.AppendBytes(nil, v) },
		func(v []uint8) int { return sps.SizeInts[uint8](len(v)) }, "seq-u8"),
	reused("u16s/reused", Seq(U16),
		func(d *sps.Decoder) []uint16 { reusedU16s = d.U16s(reusedU16s[:0]); return reusedU16s },
		func(v []uint16) []byte { return sps.AppendU16s(nil, v) },
		func(v []uint16) int { return sps.SizeInts[uint16](len(v)) }, "seq-u16"),
	reused("u64s/reused", Seq(U64),
		func(d *sps.Decoder) []uint64 { reusedU64s = d.U64s(reusedU64s[:0]); return reusedU64s },
		func(v []uint64) []byte { return sps.AppendU64s(nil, v) },
		func(v []uint64) int { return sps.SizeInts[uint64](len(v)) }, "seq-u64"),
	reused("addrs/reused", Seq(U64),
		func(d *sps.Decoder) []sps.Addr { reusedAddrs = d.Addrs(reusedAddrs[:0]); return reusedAddrs },
		func(v []sps.Addr) []byte { return sps.AppendAddrs(nil, v) },
		func(v []sps.Addr) int { return sps.SizeInts[sps.Addr](len(v)) }, "seq-addr"),
	codecShape("seq-i8", Seq(I8), sps.Seq(sps.I8)).seeded(cat(u64(3), raw(0, 0x7f, 0x80))),
	codecShape("seq-i16", Seq(I16), sps.Seq(sps.I16)).seeded(cat(u64(2), u16(1), u16(0x8000))),
	codecShape("seq-i32", Seq(I32), sps.Seq(sps.I32), "seq-i32"),
	codecShape("seq-i64", Seq(I64), sps.Seq(sps.I64)).seeded(cat(u64(2), u64(1), u64(1<<63))),

	// Sequences of records that hold every element codec, whose MinSize
	// bounds the count; maps decoded alone.
	codecShape("seq/scalar-records", Seq(scalarRec), sps.Seq(sps.Tuple3(
		sps.Tuple3(sps.Bool, sps.I8, sps.I16), sps.Tuple3(sps.I32, sps.I64, sps.Size),
		sps.Tuple3(sps.Empty, sps.ErrorCodec, sps.ExpectedOf(sps.U32))))).
		seeded(cat(u64(2), scalarsOK, scalarsErr), cat(u64(1), scalarsOK[:10]), cat(u64(1), scalarsErr[:33])),
	codecShape("seq/orc-records", Seq(orcRec), sps.Seq(sps.Tuple3(
		sps.Tuple3(sps.StringSeqCodec, sps.SymbolFlagsCodec, sps.SymbolDefCodec),
		sps.Tuple3(sps.WrapperCallCodec, sps.ActionPairCodec, sps.AllocGroupCodec),
		sps.Tuple3(sps.SegFinalizeCodec, sps.SharedSegFinalizeCodec, sps.SpanRangeCodec(8))))).
		seeded(cat(u64(1), orcFields, u64(seedA1), u64(seedA1+16)), cat(u64(1), orcFields, u64(seedA1), u64(seedA1+4))),
	codecShape("seq/request-records", Seq(requestRec), sps.Seq(sps.Tuple3(
		sps.Tuple2(sps.FinalizeRequestCodec, sps.SharedFinalizeRequestCodec),
		sps.Tuple2(sps.SetupInfoCodec, sps.SetupInfoNoMapCodec),
		sps.Tuple2(sps.MapOf(sps.U32, sps.Bool), sps.MapEntriesOf(sps.AddrCodec, sps.String))))).
		unorderedMap().checked(checkRequests).
		seeded(cat(u64(1), requestFields, u32Map(1, 2), addrMap(seedA1, seedA2)),
			cat(u64(1), requestFields, u32Map(7, 7), addrMap(seedA1, seedA2)),
			cat(u64(1), requestFields, u32Map(), addrMap(seedA1, seedA1))),
	codecShape("map-u32-bool", Map(U32, Bool), sps.MapOf(sps.U32, sps.Bool)).unorderedMap().
		seeded(u32Map(1, 2, 3), u32Map(7, 7)),
	codecShape("map-addr-string", Entries(U64, Bytes), sps.MapEntriesOf(sps.AddrCodec, sps.String)).
		seeded(addrMap(seedA1, seedA2), addrMap(seedA2, seedA1, seedA2)),

	// LLVM 23's resolve and orc-rt's NativeDylibManager lookup
	// (sps/llvm23.go), orc-rt's load and read_buffers (LLVM main).
	args3("args/resolve23", lookupArgs, sps.DylibManagerResolveAddrs, "args-resolve23"),
	ret("ret/resolve23", Expected(Seq(Optional(U64))), sps.DylibManagerResolveAddrs, sps.DylibManagerResolveAddrs.Ret, "ret-resolve23"),
	args2("args/load", Tuple(U64, Bytes), sps.NativeDylibManagerLoad, "args-symbol-lookup"),
	codecShape("read-buffers-sized", Seq(Tuple(U64, U64)), sps.Seq(sps.Tuple2(sps.AddrCodec, sps.U64)), "args-read-buffers-sized"),
}

var (
	reusedU8s   []uint8
	reusedU16s  []uint16
	reusedU32s  []uint32
	reusedU64s  []uint64
	reusedAddrs []sps.Addr
)

// pick splits a fuzz input into its shape and message.
func pick(data []byte) (shape, []byte, bool) {
	if len(data) == 0 {
		return shape{}, nil, false
	}
	return shapes[int(data[0])%len(shapes)], data[1:], true
}
