package sps

import (
	"reflect"
)

// A kind binds a golden-vector key (the part of a vector name before '/')
// to the Go API that decodes and encodes that wire shape. golden.cpp binds
// the same key to LLVM's types.
type kind struct {
	decode func(b []byte) (v any, consumed int, err error)
	encode func(v any) []byte
	size   func(v any) int
	types  []reflect.Type // one per argument, for random values
	// llvmReorders: LLVM keeps this shape in StringMaps, so it re-encodes
	// entries in its hash order, and a Go map encodes in random order.
	llvmReorders bool
	// alts are other Go paths for the same shape that must agree.
	alts []alt
}

type alt struct {
	name   string
	decode func(b []byte) (v any, consumed int, err error)
	encode func(v any) []byte // nil: not an encoder
	norm   func(v any) any    // maps the alt's value to the primary's Go type
}

func codecKind[T any](c Codec[T]) kind {
	return kind{
		decode: func(b []byte) (any, int, error) {
			d := NewDecoder(b)
			v := c.Decode(&d)
			return v, d.Offset(), d.Err()
		},
		encode: func(v any) []byte { return c.Append(nil, as[T](v)) },
		size:   func(v any) int { return c.Size(as[T](v)) },
		types:  []reflect.Type{reflect.TypeFor[T]()},
	}
}

func codecAlt[T any](name string, c Codec[T]) alt {
	k := codecKind(c)
	return alt{name: name, decode: k.decode, encode: k.encode}
}

// args1 exercises DecodeArgs (pooled decoder) and DecodeArgsFrom and checks
// that they agree.
func args1[A1, R any](f Func1[A1, R]) kind {
	return kind{
		decode: func(b []byte) (any, int, error) {
			d := NewDecoder(b)
			a1 := f.DecodeArgsFrom(&d)
			p1, perr := f.DecodeArgs(b)
			if (perr == nil) != (d.Err() == nil) || (perr == nil && render(p1) != render(a1)) {
				panic("DecodeArgs and DecodeArgsFrom disagree")
			}
			return a1, d.Offset(), d.Err()
		},
		encode: func(v any) []byte { return f.AppendArgs(nil, as[A1](v)) },
		size:   func(v any) int { return f.ArgsSize(as[A1](v)) },
		types:  []reflect.Type{reflect.TypeFor[A1]()},
	}
}

func args2[A1, A2, R any](f Func2[A1, A2, R]) kind {
	return kind{
		decode: func(b []byte) (any, int, error) {
			d := NewDecoder(b)
			a1, a2 := f.DecodeArgsFrom(&d)
			p1, p2, perr := f.DecodeArgs(b)
			if (perr == nil) != (d.Err() == nil) || (perr == nil && render(args{p1, p2}) != render(args{a1, a2})) {
				panic("DecodeArgs and DecodeArgsFrom disagree")
			}
			return args{a1, a2}, d.Offset(), d.Err()
		},
		encode: func(v any) []byte { a := v.(args); return f.AppendArgs(nil, as[A1](a[0]), as[A2](a[1])) },
		size:   func(v any) int { a := v.(args); return f.ArgsSize(as[A1](a[0]), as[A2](a[1])) },
		types:  []reflect.Type{reflect.TypeFor[A1](), reflect.TypeFor[A2]()},
	}
}

func args3[A1, A2, A3, R any](f Func3[A1, A2, A3, R]) kind {
	return kind{
		decode: func(b []byte) (any, int, error) {
			d := NewDecoder(b)
			a1, a2, a3 := f.DecodeArgsFrom(&d)
			p1, p2, p3, perr := f.DecodeArgs(b)
			if (perr == nil) != (d.Err() == nil) || (perr == nil && render(args{p1, p2, p3}) != render(args{a1, a2, a3})) {
				panic("DecodeArgs and DecodeArgsFrom disagree")
			}
			return args{a1, a2, a3}, d.Offset(), d.Err()
		},
		encode: func(v any) []byte {
			a := v.(args)
			return f.AppendArgs(nil, as[A1](a[0]), as[A2](a[1]), as[A3](a[2]))
		},
		size: func(v any) int { a := v.(args); return f.ArgsSize(as[A1](a[0]), as[A2](a[1]), as[A3](a[2])) },
		types: []reflect.Type{reflect.TypeFor[A1](), reflect.TypeFor[A2](),
			reflect.TypeFor[A3]()},
	}
}

// ret uses DecodeResult/AppendResult of a signature.
func ret[R any](decodeResult func([]byte) (R, error), c Codec[R]) kind {
	k := codecKind(c)
	dec := k.decode
	k.decode = func(b []byte) (any, int, error) {
		v, n, err := dec(b)
		p, perr := decodeResult(b)
		if (perr == nil) != (err == nil) || (perr == nil && render(p) != render(v)) {
			panic("DecodeResult and Codec.Decode disagree")
		}
		return v, n, err
	}
	return k
}

// intsAlts are the other paths for a sequence of fixed-size integers: the
// generic element-wise sequence codec, the Decoder bulk method (fast path)
// and the portable bulk implementation.
func intsAlts[T FixedInt](elem Codec[T]) []alt {
	return []alt{
		codecAlt("generic-seq", Codec[[]T](seqCodec[T]{elem})),
		{
			name: "DecodeInts",
			decode: func(b []byte) (any, int, error) {
				d := NewDecoder(b)
				v := DecodeInts[T](&d, make([]T, 0, 1))
				return v, d.Offset(), d.Err()
			},
			encode: func(v any) []byte { return AppendInts(nil, v.([]T)) },
		},
		{
			name: "portable",
			decode: func(b []byte) (any, int, error) {
				d := NewDecoder(b)
				n := d.Count(sizeOf[T](), "sequence length")
				if d.Failed() {
					return nil, d.Offset(), d.Err()
				}
				raw := d.Raw(n*sizeOf[T](), "elements")
				return decodeIntsGeneric(make([]T, 0, n), raw, n), d.Offset(), d.Err()
			},
			encode: func(v any) []byte {
				s := v.([]T)
				return appendIntsGeneric(AppendCount(nil, len(s)), s)
			},
		},
		{
			name: "DecodeSeq",
			decode: func(b []byte) (any, int, error) {
				d := NewDecoder(b)
				v := DecodeSeq(&d, elem, nil)
				return v, d.Offset(), d.Err()
			},
			encode: func(v any) []byte { return AppendSeq(nil, elem, v.([]T)) },
		},
	}
}

func mapEntriesNorm[K comparable, V any](v any) any {
	m := map[K]V{}
	for _, e := range v.([]Pair[K, V]) {
		m[e.First] = e.Second
	}
	return m
}

func withAlts(k kind, alts ...alt) kind { k.alts = append(k.alts, alts...); return k }

func reorders(k kind) kind { k.llvmReorders = true; return k }

var finalizeMethodAlt = alt{
	name: "(*FinalizeRequest).Decode",
	decode: func(b []byte) (any, int, error) {
		// Decode twice into the same request to exercise slice reuse.
		var r FinalizeRequest
		d := NewDecoder(b)
		r.Decode(&d)
		d.Reset(b)
		r.Decode(&d)
		return r, d.Offset(), d.Err()
	},
	encode: func(v any) []byte {
		r := v.(FinalizeRequest)
		out := r.Append(make([]byte, 0, r.Size()))
		if len(out) != r.Size() {
			panic("FinalizeRequest.Size is wrong")
		}
		return out
	},
}

var sharedFinalizeMethodAlt = alt{
	name: "(*SharedFinalizeRequest).Decode",
	decode: func(b []byte) (any, int, error) {
		var r SharedFinalizeRequest
		d := NewDecoder(b)
		r.Decode(&d)
		return r, d.Offset(), d.Err()
	},
	encode: func(v any) []byte { r := v.(SharedFinalizeRequest); return r.Append(nil) },
}

// kinds mirrors keys() in golden.cpp.
var kinds = map[string]kind{
	"bool":  codecKind(Bool),
	"char":  codecKind(Char),
	"i8":    codecKind(I8),
	"i16":   codecKind(I16),
	"i32":   codecKind(I32),
	"i64":   codecKind(I64),
	"u8":    codecKind(U8),
	"u16":   codecKind(U16),
	"u32":   codecKind(U32),
	"u64":   codecKind(U64),
	"size":  codecKind(Size),
	"empty": codecKind(Empty),
	"addr":  codecKind(AddrCodec),
	"addrrange": withAlts(codecKind(AddrRangeCodec),
		alt{name: "SpanRangeCodec(1) when valid", decode: func(b []byte) (any, int, error) {
			v, n, err := codecKind(AddrRangeCodec).decode(b)
			if err != nil || v.(AddrRange).End < v.(AddrRange).Start || v.(AddrRange).End == ^Addr(0) {
				return v, n, err
			}
			return codecKind(SpanRangeCodec(1)).decode(b)
		}}),
	"string": withAlts(codecKind(String),
		codecAlt("BytesView", BytesView)),
	"bytes": withAlts(codecKind(BytesCopy),
		codecAlt("BytesView", BytesView),
		codecAlt("Seq(Char)", Seq(Char)),
		alt{name: "Decoder.U8s", decode: func(b []byte) (any, int, error) {
			d := NewDecoder(b)
			v := d.U8s(nil)
			return v, d.Offset(), d.Err()
		}}),
	"bytesview": withAlts(codecKind(BytesView),
		codecAlt("BytesCopy", BytesCopy),
		codecAlt("String", String)),
	"seq-u8":          withAlts(codecKind(Seq(U8)), intsAlts(U8)...),
	"seq-u16":         withAlts(codecKind(Seq(U16)), intsAlts(U16)...),
	"seq-u32":         withAlts(codecKind(Seq(U32)), intsAlts(U32)...),
	"seq-u64":         withAlts(codecKind(Seq(U64)), intsAlts(U64)...),
	"seq-i32":         withAlts(codecKind(Seq(I32)), intsAlts(I32)...),
	"seq-addr":        withAlts(codecKind(AddrSeqCodec), intsAlts(AddrCodec)...),
	"seq-string":      codecKind(StringSeqCodec),
	"seq-bytes":       codecKind(BytesSeqCodec),
	"seq-addrrange":   codecKind(AddrRangeSeqCodec),
	"tuple2":          codecKind(Tuple2(I32, String)),
	"tuple3":          codecKind(Tuple3(I32, String, Bool)),
	"optional-u64":    codecKind(Optional(U64)),
	"optional-string": codecKind(Optional(String)),
	"map-string-u64": reorders(withAlts(codecKind(MapOf(String, U64)),
		alt{name: "MapEntriesOf", decode: codecKind(MapEntriesOf(String, U64)).decode,
			encode: codecKind(MapEntriesOf(String, U64)).encode,
			norm:   mapEntriesNorm[string, uint64]})),
	"map-string-bytes": reorders(withAlts(codecKind(MapOf(String, BytesCopy)),
		alt{name: "MapEntriesOf", decode: codecKind(MapEntriesOf(String, BytesView)).decode,
			encode: codecKind(MapEntriesOf(String, BytesView)).encode,
			norm:   mapEntriesNorm[string, []byte]})),
	"error":          codecKind(ErrorCodec),
	"expected-u32":   codecKind(ExpectedOf(U32)),
	"expected-addr":  codecKind(ExpectedOf(AddrCodec)),
	"jitsymbolflags": codecKind(SymbolFlagsCodec),
	"symboldef":      codecKind(SymbolDefCodec),
	"lookupelement":  codecKind(LookupElementCodec),
	"lookupset":      withAlts(codecKind(LookupSetCodec), codecAlt("generic-seq", Codec[[]LookupElement](seqCodec[LookupElement]{LookupElementCodec}))),
	"lookupresult":   codecKind(LookupResultCodec),
	"wrappercall":    codecKind(WrapperCallCodec),
	"actionpair":     codecKind(ActionPairCodec),
	"allocgroup":     codecKind(AllocGroupCodec),
	"segfinalize":    codecKind(SegFinalizeCodec),
	"finalize":       withAlts(codecKind(FinalizeRequestCodec), finalizeMethodAlt),
	"sharedseg":      codecKind(SharedSegFinalizeCodec),
	"sharedfinalize": withAlts(codecKind(SharedFinalizeRequestCodec), sharedFinalizeMethodAlt),
	"u8write":        codecKind(UInt8WriteCodec),
	"u16write":       codecKind(UInt16WriteCodec),
	"u32write":       codecKind(UInt32WriteCodec),
	"u64write":       codecKind(UInt64WriteCodec),
	"pointerwrite":   codecKind(PointerWriteCodec),
	"bufferwrite":    codecKind(BufferWriteCodec),
	"setup":          reorders(codecKind(SetupInfoCodec)),

	"args-reserve":            args2(MemoryManagerReserve),
	"ret-reserve":             ret(MemoryManagerReserve.DecodeResult, MemoryManagerReserve.Ret),
	"args-initialize":         args2(MemoryManagerInitialize),
	"ret-initialize":          ret(MemoryManagerInitialize.DecodeResult, MemoryManagerInitialize.Ret),
	"args-deinitialize":       args2(MemoryManagerDeinitialize),
	"ret-deinitialize":        ret(MemoryManagerDeinitialize.DecodeResult, MemoryManagerDeinitialize.Ret),
	"args-release":            args2(MemoryManagerRelease),
	"ret-release":             ret(MemoryManagerRelease.DecodeResult, MemoryManagerRelease.Ret),
	"args-open":               args3(DylibManagerOpen),
	"ret-open":                ret(DylibManagerOpen.DecodeResult, DylibManagerOpen.Ret),
	"args-resolve":            args2(DylibManagerResolve),
	"ret-resolve":             ret(DylibManagerResolve.DecodeResult, DylibManagerResolve.Ret),
	"args-resolve23":          args3(DylibManagerResolveAddrs),
	"ret-resolve23":           ret(DylibManagerResolveAddrs.DecodeResult, DylibManagerResolveAddrs.Ret),
	"args-read-buffers-sized": codecKind(Seq(Tuple2(AddrCodec, U64))),
	"args-write-uint8s":       args1(WriteUInt8s),
	"args-write-uint16s":      args1(WriteUInt16s),
	"args-write-uint32s":      args1(WriteUInt32s),
	"args-write-uint64s":      args1(WriteUInt64s),
	"args-write-pointers":     args1(WritePointers),
	"args-write-buffers":      args1(WriteBuffers),
	"ret-write":               ret(WriteUInt8s.DecodeResult, WriteUInt8s.Ret),
	"args-read-uint8s":        args1(ReadUInt8s),
	"args-read-uint16s":       args1(ReadUInt16s),
	"args-read-uint32s":       args1(ReadUInt32s),
	"args-read-uint64s":       args1(ReadUInt64s),
	"args-read-pointers":      args1(ReadPointers),
	"args-read-buffers":       args1(ReadBuffers),
	"args-read-strings":       args1(ReadStrings),
	"ret-read-uint8s":         ret(ReadUInt8s.DecodeResult, ReadUInt8s.Ret),
	"ret-read-uint16s":        ret(ReadUInt16s.DecodeResult, ReadUInt16s.Ret),
	"ret-read-uint32s":        ret(ReadUInt32s.DecodeResult, ReadUInt32s.Ret),
	"ret-read-uint64s":        ret(ReadUInt64s.DecodeResult, ReadUInt64s.Ret),
	"ret-read-pointers":       ret(ReadPointers.DecodeResult, ReadPointers.Ret),
	"ret-read-buffers":        ret(ReadBuffers.DecodeResult, ReadBuffers.Ret),
	"ret-read-strings":        ret(ReadStrings.DecodeResult, ReadStrings.Ret),
	"args-run-as-main":        args2(RunAsMain),
	"ret-run-as-main":         ret(RunAsMain.DecodeResult, RunAsMain.Ret),
	"args-run-as-void":        args1(RunAsVoidFunction),
	"ret-run-as-void":         ret(RunAsVoidFunction.DecodeResult, RunAsVoidFunction.Ret),
	"args-run-as-int":         args2(RunAsIntFunction),
	"ret-run-as-int":          ret(RunAsIntFunction.DecodeResult, RunAsIntFunction.Ret),
	"args-register-ehframe":   args1(RegisterEHFrameAction),
	"args-deregister-ehframe": args1(DeregisterEHFrameAction),
	"args-register-gdb":       args2(RegisterJITLoaderGDBAction),
	"ret-action":              ret(RegisterEHFrameAction.DecodeResult, RegisterEHFrameAction.Ret),
	"args-shm-reserve":        args2(SharedMemoryReserve),
	"ret-shm-reserve":         ret(SharedMemoryReserve.DecodeResult, SharedMemoryReserve.Ret),
	"args-shm-initialize":     args3(SharedMemoryInitialize),
	"ret-shm-initialize":      ret(SharedMemoryInitialize.DecodeResult, SharedMemoryInitialize.Ret),
	"args-shm-deinitialize":   args2(SharedMemoryDeinitialize),
	"args-shm-release":        args2(SharedMemoryRelease),
	"args-push-initializers":  args1(ELFNixPushInitializers),
	"ret-push-initializers":   ret(ELFNixPushInitializers.DecodeResult, ELFNixPushInitializers.Ret),
	"args-symbol-lookup":      args2(ELFNixSymbolLookup),
	"ret-symbol-lookup":       ret(ELFNixSymbolLookup.DecodeResult, ELFNixSymbolLookup.Ret),
	"args-lazy-resolve":       args1(LazyResolve),
	"args-perf-impl":          args1(RegisterPerfImpl),
	"ret-lazy-resolve":        ret(LazyResolve.DecodeResult, LazyResolve.Ret),
}

// as is v.(T) that maps a nil interface (a nil error) to T's zero value.
func as[T any](v any) T {
	if v == nil {
		var z T
		return z
	}
	return v.(T)
}
