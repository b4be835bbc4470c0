package spsfuzz

import (
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
	golden []string // keys of golden vectors that are seeds for this shape
}

// argList is a decoded argument list of two or more arguments.
type argList []any

func codecShape[T any](name string, s *Schema, c sps.Codec[T], golden ...string) shape {
	return shape{
		name:   name,
		schema: s,
		decode: func(in []byte) (any, int, error) {
			d := sps.NewDecoder(in)
			v := c.Decode(&d)
			return v, d.Offset(), d.Err()
		},
		encode: func(v any) []byte { return c.Append(nil, as[T](v)) },
		size:   func(v any) int { return c.Size(as[T](v)) },
		golden: golden,
	}
}

func args1[A1, R any](name string, s *Schema, f sps.Func1[A1, R], golden ...string) shape {
	return shape{
		name:   name,
		schema: s,
		decode: func(in []byte) (any, int, error) {
			d := sps.NewDecoder(in)
			a1 := f.DecodeArgsFrom(&d)
			return a1, d.Offset(), d.Err()
		},
		encode: func(v any) []byte { return f.AppendArgs(nil, as[A1](v)) },
		size:   func(v any) int { return f.ArgsSize(as[A1](v)) },
		golden: golden,
	}
}

func args2[A1, A2, R any](name string, s *Schema, f sps.Func2[A1, A2, R], golden ...string) shape {
	return shape{
		name:   name,
		schema: s,
		decode: func(in []byte) (any, int, error) {
			d := sps.NewDecoder(in)
			a1, a2 := f.DecodeArgsFrom(&d)
			return argList{a1, a2}, d.Offset(), d.Err()
		},
		encode: func(v any) []byte { a := v.(argList); return f.AppendArgs(nil, as[A1](a[0]), as[A2](a[1])) },
		size:   func(v any) int { a := v.(argList); return f.ArgsSize(as[A1](a[0]), as[A2](a[1])) },
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
			return argList{a1, a2, a3}, d.Offset(), d.Err()
		},
		encode: func(v any) []byte {
			a := v.(argList)
			return f.AppendArgs(nil, as[A1](a[0]), as[A2](a[1]), as[A3](a[2]))
		},
		size: func(v any) int {
			a := v.(argList)
			return f.ArgsSize(as[A1](a[0]), as[A2](a[1]), as[A3](a[2]))
		},
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

// Schemas of the ORC types, written from docs/protocol.md §2.
var (
	addrRange   = Tuple(U64, U64)
	symbolDef   = Tuple(U64, Tuple(U8, U8))
	lookupElem  = Tuple(Bytes, Bool)
	call        = Tuple(U64, Bytes)
	actionPair  = Tuple(call, call)
	segment     = Tuple(Group, U64, U64, Bytes)
	finalize    = Tuple(Seq(segment), Seq(actionPair))
	sharedFinal = Tuple(Seq(Tuple(Group, U64, U64)), Seq(actionPair))
	setup       = Tuple(Bytes, U64, UniqueMap(Bytes), UniqueMap(U64))
)

// reusedFinalize decodes with (*FinalizeRequest).Decode into a request
// reused across inputs, the way the memory manager's hot path does.
var reusedFinalize sps.FinalizeRequest

// shapes lists every top-level message; the first input byte selects one.
var shapes = []shape{
	codecShape("setup", setup, sps.SetupInfoCodec, "setup"),
	{
		name:   "finalize/reused",
		schema: finalize,
		decode: func(in []byte) (any, int, error) {
			d := sps.NewDecoder(in)
			reusedFinalize.Decode(&d)
			return reusedFinalize, d.Offset(), d.Err()
		},
		encode: func(v any) []byte { r := v.(sps.FinalizeRequest); return r.Append(nil) },
		size:   func(v any) int { r := v.(sps.FinalizeRequest); return r.Size() },
		golden: []string{"finalize"},
	},
	codecShape("finalize/codec", finalize, sps.FinalizeRequestCodec, "finalize"),
	codecShape("sharedfinalize", sharedFinal, sps.SharedFinalizeRequestCodec, "sharedfinalize"),
	codecShape("hangup", Error, sps.ErrorCodec, "error"),
	args2("args/reserve", Tuple(U64, U64), sps.MemoryManagerReserve, "args-reserve", "args-shm-reserve"),
	codecShape("ret/expected-addr", Expected(U64), sps.MemoryManagerReserve.Ret,
		"ret-reserve", "ret-initialize", "ret-open", "ret-symbol-lookup", "ret-shm-initialize", "expected-addr"),
	args2("args/initialize", Tuple(U64, finalize), sps.MemoryManagerInitialize, "args-initialize"),
	args2("args/deinitialize", Tuple(U64, Seq(U64)), sps.MemoryManagerDeinitialize,
		"args-deinitialize", "args-release", "args-shm-deinitialize", "args-shm-release"),
	codecShape("ret/error", Error, sps.MemoryManagerRelease.Ret, "ret-deinitialize", "ret-release", "ret-action"),
	args3("args/open", Tuple(U64, Bytes, U64), sps.DylibManagerOpen, "args-open"),
	args2("args/resolve", Tuple(U64, Seq(lookupElem)), sps.DylibManagerResolve, "args-resolve"),
	codecShape("ret/resolve", Expected(Seq(Optional(symbolDef))), sps.DylibManagerResolve.Ret, "ret-resolve"),
	args1("args/write-uint8s", Seq(Tuple(U64, U8)), sps.WriteUInt8s, "args-write-uint8s"),
	args1("args/write-uint16s", Seq(Tuple(U64, U16)), sps.WriteUInt16s, "args-write-uint16s"),
	args1("args/write-uint32s", Seq(Tuple(U64, U32)), sps.WriteUInt32s, "args-write-uint32s"),
	args1("args/write-uint64s", Seq(Tuple(U64, U64)), sps.WriteUInt64s, "args-write-uint64s"),
	args1("args/write-pointers", Seq(Tuple(U64, U64)), sps.WritePointers, "args-write-pointers"),
	args1("args/write-buffers", Seq(Tuple(U64, Bytes)), sps.WriteBuffers, "args-write-buffers"),
	codecShape("ret/void", Empty, sps.WriteUInt8s.Ret, "ret-write"),
	args1("args/read", Seq(U64), sps.ReadUInt32s,
		"args-read-uint8s", "args-read-uint16s", "args-read-uint32s", "args-read-uint64s",
		"args-read-pointers", "args-read-strings"),
	args1("args/read-buffers", Seq(addrRange), sps.ReadBuffers, "args-read-buffers"),
	codecShape("ret/read-uint8s", Bytes, sps.ReadUInt8s.Ret, "ret-read-uint8s"),
	codecShape("ret/read-uint16s", Seq(U16), sps.ReadUInt16s.Ret, "ret-read-uint16s"),
	codecShape("ret/read-uint32s", Seq(U32), sps.ReadUInt32s.Ret, "ret-read-uint32s"),
	codecShape("ret/read-uint64s", Seq(U64), sps.ReadUInt64s.Ret, "ret-read-uint64s"),
	codecShape("ret/read-pointers", Seq(U64), sps.ReadPointers.Ret, "ret-read-pointers"),
	codecShape("ret/read-buffers", Seq(Bytes), sps.ReadBuffers.Ret, "ret-read-buffers"),
	codecShape("ret/read-strings", Seq(Bytes), sps.ReadStrings.Ret, "ret-read-strings"),
	args2("args/run-as-main", Tuple(U64, Seq(Bytes)), sps.RunAsMain, "args-run-as-main"),
	codecShape("ret/run-as-main", I64, sps.RunAsMain.Ret, "ret-run-as-main"),
	args1("args/run-as-void", U64, sps.RunAsVoidFunction, "args-run-as-void"),
	codecShape("ret/i32", I32, sps.RunAsVoidFunction.Ret, "ret-run-as-void", "ret-run-as-int"),
	args2("args/run-as-int", Tuple(U64, I32), sps.RunAsIntFunction, "args-run-as-int"),
	args1("args/ehframe", addrRange, sps.RegisterEHFrameAction, "args-register-ehframe", "args-deregister-ehframe"),
	args2("args/gdb", Tuple(addrRange, Bool), sps.RegisterJITLoaderGDBAction, "args-register-gdb"),
	codecShape("ret/shm-reserve", Expected(Tuple(U64, Bytes)), sps.SharedMemoryReserve.Ret, "ret-shm-reserve"),
	args3("args/shm-initialize", Tuple(U64, U64, sharedFinal), sps.SharedMemoryInitialize, "args-shm-initialize"),
	args1("args/push-initializers", U64, sps.ELFNixPushInitializers, "args-push-initializers"),
	codecShape("ret/push-initializers", Expected(Seq(Tuple(U64, Seq(U64)))), sps.ELFNixPushInitializers.Ret, "ret-push-initializers"),
	args2("args/symbol-lookup", Tuple(U64, Bytes), sps.ELFNixSymbolLookup, "args-symbol-lookup"),
	args1("args/lazy-resolve", U64, sps.LazyResolve, "args-lazy-resolve"),
	codecShape("ret/lazy-resolve", Expected(symbolDef), sps.LazyResolve.Ret, "ret-lazy-resolve"),
	codecShape("map-entries", UniqueMap(U64), sps.MapEntriesOf(sps.String, sps.U64), "map-string-u64"),
	{
		name:   "u32s/reused",
		schema: Seq(U32),
		decode: func(in []byte) (any, int, error) {
			d := sps.NewDecoder(in)
			reusedU32s = d.U32s(reusedU32s[:0])
			return reusedU32s, d.Offset(), d.Err()
		},
		encode: func(v any) []byte { return sps.AppendU32s(nil, v.([]uint32)) },
		size:   func(v any) int { return sps.SizeInts[uint32](len(v.([]uint32))) },
		golden: []string{"seq-u32"},
	},
}

var reusedU32s []uint32

// pick splits a fuzz input into its shape and message.
func pick(data []byte) (shape, []byte, bool) {
	if len(data) == 0 {
		return shape{}, nil, false
	}
	return shapes[int(data[0])%len(shapes)], data[1:], true
}
