package sps

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// Codecs for the ORC types LLVM 22 puts on the wire.
var (
	AddrRangeCodec     Codec[AddrRange]          = addrRangeCodec{}
	SymbolFlagsCodec   Codec[SymbolFlags]        = symbolFlagsCodec{}
	SymbolDefCodec     Codec[SymbolDef]          = symbolDefCodec{}
	LookupElementCodec Codec[LookupElement]      = lookupElementCodec{}
	LookupSetCodec     Codec[[]LookupElement]    = Seq(LookupElementCodec)
	WrapperCallCodec   Codec[WrapperCall]        = wrapperCallCodec{}
	ActionPairCodec    Codec[ActionPair]         = actionPairCodec{}
	AllocGroupCodec    Codec[AllocGroup]         = allocGroupCodec{}
	SegFinalizeCodec   Codec[SegFinalizeRequest] = segFinalizeCodec{}
	// FinalizeRequestCodec decodes into fresh slices; the hot path uses
	// [FinalizeRequest.Decode] with reused slices instead.
	FinalizeRequestCodec       Codec[FinalizeRequest]          = finalizeRequestCodec{}
	SharedSegFinalizeCodec     Codec[SharedSegFinalizeRequest] = sharedSegFinalizeCodec{}
	SharedFinalizeRequestCodec Codec[SharedFinalizeRequest]    = sharedFinalizeRequestCodec{}
	BufferWriteCodec           Codec[BufferWrite]              = bufferWriteCodec{}
	SetupInfoCodec             Codec[SetupInfo]                = setupInfoCodec{}
	// SetupInfoNoMapCodec is the Setup layout of LLVM 14-16: no
	// bootstrap map between the page size and the symbols.
	SetupInfoNoMapCodec Codec[SetupInfo] = setupInfoCodec{noMap: true}
)

// Codecs for the memory-access write elements (SPSMemoryAccessUInt8Write
// ... SPSMemoryAccessPointerWrite).
var (
	UInt8WriteCodec   = UIntWriteCodec(U8)
	UInt16WriteCodec  = UIntWriteCodec(U16)
	UInt32WriteCodec  = UIntWriteCodec(U32)
	UInt64WriteCodec  = UIntWriteCodec(U64)
	PointerWriteCodec = UIntWriteCodec(AddrCodec)
)

// SpanRangeCodec returns a codec for an SPSExecutorAddrRange that describes
// a span of elemSize-byte elements, with the checks orc-rt applies when it
// decodes such a range into a span<T>: End >= Start, neither bound equal to
// the all-ones address, and a length that is a multiple of elemSize. (LLVM
// 22's own ExecutorAddrRange decoder checks nothing; use [AddrRangeCodec]
// for that.) The encoding is the same as AddrRangeCodec's.
func SpanRangeCodec(elemSize int) Codec[AddrRange] {
	if elemSize < 1 {
		elemSize = 1
	}
	return spanRangeCodec{uint64(elemSize)}
}

type spanRangeCodec struct{ elem uint64 }

func (spanRangeCodec) Size(AddrRange) int { return 16 }
func (spanRangeCodec) Append(b []byte, v AddrRange) []byte {
	return addrRangeCodec{}.Append(b, v)
}
func (c spanRangeCodec) Decode(d *Decoder) AddrRange {
	off := d.off
	r := addrRangeCodec{}.Decode(d)
	switch {
	case d.err != nil:
		return AddrRange{}
	case r.End < r.Start:
		d.failAt(off, "span range", fmt.Sprintf("end %#x is below start %#x", uint64(r.End), uint64(r.Start)))
	case r.Start == ^Addr(0) || r.End == ^Addr(0):
		d.failAt(off, "span range", "bound is the all-ones address")
	case uint64(r.End-r.Start)%c.elem != 0:
		d.failAt(off, "span range", fmt.Sprintf("length %d is not a multiple of the %d-byte element size", uint64(r.End-r.Start), c.elem))
	default:
		return r
	}
	return AddrRange{}
}
func (spanRangeCodec) MinSize() int { return 16 }

// UIntWriteCodec returns the codec for SPSMemoryAccessUIntWrite<T> given the
// codec of T.
func UIntWriteCodec[T uint8 | uint16 | uint32 | uint64 | Addr](v Codec[T]) Codec[UIntWrite[T]] {
	return uintWriteCodec[T]{v}
}

type addrRangeCodec struct{}

func (addrRangeCodec) Size(AddrRange) int { return 16 }
func (addrRangeCodec) Append(b []byte, v AddrRange) []byte {
	return AppendAddr(AppendAddr(b, v.Start), v.End)
}
func (addrRangeCodec) Decode(d *Decoder) AddrRange {
	s := d.Addr()
	return AddrRange{Start: s, End: d.Addr()}
}
func (addrRangeCodec) MinSize() int { return 16 }

type symbolFlagsCodec struct{}

func (symbolFlagsCodec) Size(SymbolFlags) int { return 2 }
func (symbolFlagsCodec) Append(b []byte, v SymbolFlags) []byte {
	return append(b, v.Flags, v.TargetFlags)
}
func (symbolFlagsCodec) Decode(d *Decoder) SymbolFlags {
	f := d.U8()
	return SymbolFlags{Flags: f, TargetFlags: d.U8()}
}
func (symbolFlagsCodec) MinSize() int { return 2 }

type symbolDefCodec struct{}

func (symbolDefCodec) Size(SymbolDef) int { return 10 }
func (symbolDefCodec) Append(b []byte, v SymbolDef) []byte {
	return append(AppendAddr(b, v.Addr), v.Flags.Flags, v.Flags.TargetFlags)
}
func (symbolDefCodec) Decode(d *Decoder) SymbolDef {
	a := d.Addr()
	return SymbolDef{Addr: a, Flags: symbolFlagsCodec{}.Decode(d)}
}
func (symbolDefCodec) MinSize() int { return 10 }

type lookupElementCodec struct{}

func (lookupElementCodec) Size(v LookupElement) int { return 8 + len(v.Name) + 1 }
func (lookupElementCodec) Append(b []byte, v LookupElement) []byte {
	return AppendBool(AppendBytes(b, v.Name), v.Required)
}
func (lookupElementCodec) Decode(d *Decoder) LookupElement {
	n := d.Bytes()
	return LookupElement{Name: n, Required: d.Bool()}
}
func (lookupElementCodec) MinSize() int { return 9 }

type wrapperCallCodec struct{}

func (wrapperCallCodec) Size(v WrapperCall) int { return 16 + len(v.Args) }
func (wrapperCallCodec) Append(b []byte, v WrapperCall) []byte {
	return AppendBytes(AppendAddr(b, v.Fn), v.Args)
}
func (wrapperCallCodec) Decode(d *Decoder) WrapperCall {
	fn := d.Addr()
	return WrapperCall{Fn: fn, Args: d.Bytes()}
}
func (wrapperCallCodec) MinSize() int { return 16 }

type actionPairCodec struct{}

func (actionPairCodec) Size(v ActionPair) int { return 32 + len(v.Finalize.Args) + len(v.Dealloc.Args) }
func (actionPairCodec) Append(b []byte, v ActionPair) []byte {
	b = wrapperCallCodec{}.Append(b, v.Finalize)
	return wrapperCallCodec{}.Append(b, v.Dealloc)
}
func (actionPairCodec) Decode(d *Decoder) ActionPair {
	f := wrapperCallCodec{}.Decode(d)
	return ActionPair{Finalize: f, Dealloc: wrapperCallCodec{}.Decode(d)}
}
func (actionPairCodec) MinSize() int { return 32 }

type allocGroupCodec struct{}

func (allocGroupCodec) Size(AllocGroup) int { return 1 }
func (allocGroupCodec) Append(b []byte, v AllocGroup) []byte {
	return append(b, byte(v&allocGroupMask))
}
func (allocGroupCodec) Decode(d *Decoder) AllocGroup { return AllocGroup(d.U8()) & allocGroupMask }
func (allocGroupCodec) MinSize() int                 { return 1 }

type segFinalizeCodec struct{}

func (segFinalizeCodec) Size(v SegFinalizeRequest) int { return 1 + 8 + 8 + 8 + len(v.Content) }
func (segFinalizeCodec) Append(b []byte, v SegFinalizeRequest) []byte {
	b = append(b, byte(v.Group&allocGroupMask))
	b = AppendAddr(b, v.Addr)
	b = AppendU64(b, v.Size)
	return AppendBytes(b, v.Content)
}
func (segFinalizeCodec) Decode(d *Decoder) SegFinalizeRequest {
	g := AllocGroup(d.U8()) & allocGroupMask
	a := d.Addr()
	s := d.U64()
	return SegFinalizeRequest{Group: g, Addr: a, Size: s, Content: d.Bytes()}
}
func (segFinalizeCodec) MinSize() int { return 25 }

// Size returns the encoded size of r.
func (r *FinalizeRequest) Size() int {
	n := 16
	for i := range r.Segments {
		n += 25 + len(r.Segments[i].Content)
	}
	for i := range r.Actions {
		n += actionPairCodec{}.Size(r.Actions[i])
	}
	return n
}

// Append appends the encoding of r to b. It grows b at most once (to
// exactly Size more bytes) and then writes the fixed-size heads in place,
// so the cost is essentially one memmove per content and argument buffer.
func (r *FinalizeRequest) Append(b []byte) []byte {
	n := r.Size()
	b = slices.Grow(b, n)
	start := len(b)
	b = b[:start+n]
	w := b[start:]
	binary.LittleEndian.PutUint64(w, uint64(len(r.Segments)))
	w = w[8:]
	for i := range r.Segments {
		s := &r.Segments[i]
		h := w[:25]
		h[0] = byte(s.Group & allocGroupMask)
		binary.LittleEndian.PutUint64(h[1:], uint64(s.Addr))
		binary.LittleEndian.PutUint64(h[9:], s.Size)
		binary.LittleEndian.PutUint64(h[17:], uint64(len(s.Content)))
		w = w[25+copy(w[25:], s.Content):]
	}
	binary.LittleEndian.PutUint64(w, uint64(len(r.Actions)))
	w = w[8:]
	for i := range r.Actions {
		w = putCall(w, &r.Actions[i].Finalize)
		w = putCall(w, &r.Actions[i].Dealloc)
	}
	return b
}

// putCall writes an SPSWrapperFunctionCall at the start of w (which has
// room for it) and returns the rest of w.
func putCall(w []byte, c *WrapperCall) []byte {
	h := w[:16]
	binary.LittleEndian.PutUint64(h, uint64(c.Fn))
	binary.LittleEndian.PutUint64(h[8:], uint64(len(c.Args)))
	return w[16+copy(w[16:], c.Args):]
}

// Decode reads a FinalizeRequest into r, reusing r's slices, so that a
// steady stream of requests decodes without allocating. Contents and action
// arguments are views into the input (valid while the input is). On failure
// r is left truncated and the error is recorded in d.
func (r *FinalizeRequest) Decode(d *Decoder) {
	oldSegs, oldActs := len(r.Segments), len(r.Actions)
	r.Segments = decodeSegs(d, r.Segments[:0])
	r.Actions = decodeActions(d, r.Actions[:0])
	// Drop views of earlier inputs left beyond the new lengths so that a
	// reused request does not keep old messages alive.
	if l := len(r.Segments); l < oldSegs {
		clear(r.Segments[l:oldSegs])
	}
	if l := len(r.Actions); l < oldActs {
		clear(r.Actions[l:oldActs])
	}
}

func decodeSegs(d *Decoder, dst []SegFinalizeRequest) []SegFinalizeRequest {
	n := d.Count(25, "segment count")
	dst = slices.Grow(dst, n)
	for i := 0; i < n && d.err == nil; i++ {
		dst = append(dst, decodeSeg(d))
	}
	return dst
}

// decodeSeg reads one SPSSegFinalizeRequest. The fixed 25-byte head is read
// with one bounds check when it is all there.
func decodeSeg(d *Decoder) SegFinalizeRequest {
	if d.err == nil && len(d.buf)-d.off >= 25 {
		h := d.buf[d.off : d.off+25]
		d.off += 25
		s := SegFinalizeRequest{
			Group: AllocGroup(h[0]) & allocGroupMask,
			Addr:  Addr(binary.LittleEndian.Uint64(h[1:])),
			Size:  binary.LittleEndian.Uint64(h[9:]),
		}
		if n := binary.LittleEndian.Uint64(h[17:]); n <= uint64(len(d.buf)-d.off) {
			s.Content = d.buf[d.off : d.off+int(n) : d.off+int(n)]
			d.off += int(n)
		} else {
			d.off -= 8
			s.Content = d.Bytes() // records the error
		}
		return s
	}
	return segFinalizeCodec{}.Decode(d)
}

func decodeActions(d *Decoder, dst []ActionPair) []ActionPair {
	n := d.Count(32, "action count")
	dst = slices.Grow(dst, n)
	for i := 0; i < n && d.err == nil; i++ {
		f := decodeCall(d)
		dst = append(dst, ActionPair{Finalize: f, Dealloc: decodeCall(d)})
	}
	return dst
}

func decodeCall(d *Decoder) WrapperCall {
	fn := d.Addr()
	return WrapperCall{Fn: fn, Args: d.Bytes()}
}

type finalizeRequestCodec struct{}

func (finalizeRequestCodec) Size(v FinalizeRequest) int { return v.Size() }
func (finalizeRequestCodec) Append(b []byte, v FinalizeRequest) []byte {
	return v.Append(b)
}
func (finalizeRequestCodec) Decode(d *Decoder) FinalizeRequest {
	var r FinalizeRequest
	r.Decode(d)
	if d.Failed() {
		return FinalizeRequest{}
	}
	return r
}
func (finalizeRequestCodec) MinSize() int { return 16 }

type sharedSegFinalizeCodec struct{}

func (sharedSegFinalizeCodec) Size(SharedSegFinalizeRequest) int { return 17 }
func (sharedSegFinalizeCodec) Append(b []byte, v SharedSegFinalizeRequest) []byte {
	return AppendU64(AppendAddr(append(b, byte(v.Group&allocGroupMask)), v.Addr), v.Size)
}
func (sharedSegFinalizeCodec) Decode(d *Decoder) SharedSegFinalizeRequest {
	g := AllocGroup(d.U8()) & allocGroupMask
	a := d.Addr()
	return SharedSegFinalizeRequest{Group: g, Addr: a, Size: d.U64()}
}
func (sharedSegFinalizeCodec) MinSize() int { return 17 }

type sharedFinalizeRequestCodec struct{}

func (sharedFinalizeRequestCodec) Size(v SharedFinalizeRequest) int {
	n := 16 + 17*len(v.Segments)
	for i := range v.Actions {
		n += actionPairCodec{}.Size(v.Actions[i])
	}
	return n
}
func (sharedFinalizeRequestCodec) Append(b []byte, v SharedFinalizeRequest) []byte {
	b = AppendCount(b, len(v.Segments))
	for i := range v.Segments {
		b = sharedSegFinalizeCodec{}.Append(b, v.Segments[i])
	}
	b = AppendCount(b, len(v.Actions))
	for i := range v.Actions {
		b = actionPairCodec{}.Append(b, v.Actions[i])
	}
	return b
}
func (sharedFinalizeRequestCodec) Decode(d *Decoder) SharedFinalizeRequest {
	var r SharedFinalizeRequest
	r.Decode(d)
	if d.Failed() {
		return SharedFinalizeRequest{}
	}
	return r
}

// Size returns the encoded size of r.
func (r *SharedFinalizeRequest) Size() int { return sharedFinalizeRequestCodec{}.Size(*r) }

// Append appends the encoding of r to b.
func (r *SharedFinalizeRequest) Append(b []byte) []byte {
	return sharedFinalizeRequestCodec{}.Append(b, *r)
}

// Decode reads a SharedFinalizeRequest into r, reusing r's slices like
// [FinalizeRequest.Decode]. Action arguments are views into the input.
func (r *SharedFinalizeRequest) Decode(d *Decoder) {
	oldSegs, oldActs := len(r.Segments), len(r.Actions)
	n := d.Count(17, "segment count")
	r.Segments = slices.Grow(r.Segments[:0], n)
	for i := 0; i < n && d.err == nil; i++ {
		r.Segments = append(r.Segments, sharedSegFinalizeCodec{}.Decode(d))
	}
	r.Actions = decodeActions(d, r.Actions[:0])
	if l := len(r.Segments); l < oldSegs {
		clear(r.Segments[l:oldSegs])
	}
	if l := len(r.Actions); l < oldActs {
		clear(r.Actions[l:oldActs])
	}
}
func (sharedFinalizeRequestCodec) MinSize() int { return 16 }

type uintWriteCodec[T uint8 | uint16 | uint32 | uint64 | Addr] struct{ v Codec[T] }

func (c uintWriteCodec[T]) Size(w UIntWrite[T]) int { return 8 + c.v.Size(w.Value) }
func (c uintWriteCodec[T]) Append(b []byte, w UIntWrite[T]) []byte {
	return c.v.Append(AppendAddr(b, w.Addr), w.Value)
}
func (c uintWriteCodec[T]) Decode(d *Decoder) UIntWrite[T] {
	a := d.Addr()
	return UIntWrite[T]{Addr: a, Value: c.v.Decode(d)}
}
func (c uintWriteCodec[T]) MinSize() int { return 8 + c.v.MinSize() }

type bufferWriteCodec struct{}

func (bufferWriteCodec) Size(v BufferWrite) int { return 16 + len(v.Data) }
func (bufferWriteCodec) Append(b []byte, v BufferWrite) []byte {
	return AppendBytes(AppendAddr(b, v.Addr), v.Data)
}
func (bufferWriteCodec) Decode(d *Decoder) BufferWrite {
	a := d.Addr()
	return BufferWrite{Addr: a, Data: d.Bytes()}
}
func (bufferWriteCodec) MinSize() int { return 16 }

type bootstrapValueCodec struct{}

func (bootstrapValueCodec) Size(v BootstrapValue) int { return 16 + len(v.Name) + len(v.Value) }
func (bootstrapValueCodec) Append(b []byte, v BootstrapValue) []byte {
	return AppendBytes(AppendString(b, v.Name), v.Value)
}
func (bootstrapValueCodec) Decode(d *Decoder) BootstrapValue {
	n := d.String()
	return BootstrapValue{Name: n, Value: d.BytesCopy()}
}
func (bootstrapValueCodec) MinSize() int { return 16 }

type bootstrapSymbolCodec struct{}

func (bootstrapSymbolCodec) Size(v BootstrapSymbol) int { return 16 + len(v.Name) }
func (bootstrapSymbolCodec) Append(b []byte, v BootstrapSymbol) []byte {
	return AppendAddr(AppendString(b, v.Name), v.Addr)
}
func (bootstrapSymbolCodec) Decode(d *Decoder) BootstrapSymbol {
	n := d.String()
	return BootstrapSymbol{Name: n, Addr: d.Addr()}
}
func (bootstrapSymbolCodec) MinSize() int { return 16 }

type setupInfoCodec struct{ noMap bool }

func (c setupInfoCodec) Size(v SetupInfo) int {
	n := SizeString(v.Triple) + 8 + 8
	if !c.noMap {
		n += 8
	}
	for i := range v.Values {
		n += bootstrapValueCodec{}.Size(v.Values[i])
	}
	for i := range v.Symbols {
		n += bootstrapSymbolCodec{}.Size(v.Symbols[i])
	}
	return n
}

// Append writes v; the layout without a bootstrap map drops v.Values.
func (c setupInfoCodec) Append(b []byte, v SetupInfo) []byte {
	b = AppendString(b, v.Triple)
	b = AppendU64(b, v.PageSize)
	if !c.noMap {
		b = AppendCount(b, len(v.Values))
		for i := range v.Values {
			b = bootstrapValueCodec{}.Append(b, v.Values[i])
		}
	}
	b = AppendCount(b, len(v.Symbols))
	for i := range v.Symbols {
		b = bootstrapSymbolCodec{}.Append(b, v.Symbols[i])
	}
	return b
}

// Decode reads the Setup payload. Like LLVM's controller, which decodes
// both lists into StringMaps, it rejects a duplicate name in the bootstrap
// map or in the bootstrap symbols (llvm-jitlink then reports "Could not
// deserialize setup message"). Order is kept as on the wire.
func (c setupInfoCodec) Decode(d *Decoder) SetupInfo {
	t := d.String()
	p := d.U64()
	n := 0
	if !c.noMap {
		n = d.Count(16, "bootstrap map length")
	}
	vals := make([]BootstrapValue, 0, n)
	var seen map[string]struct{}
	for i := 0; i < n && d.err == nil; i++ {
		off := d.off
		v := bootstrapValueCodec{}.Decode(d)
		if d.err == nil && dupName(len(vals), func(j int) string { return vals[j].Name }, &seen, v.Name) {
			d.failAt(off, "bootstrap map key", "duplicate key "+keyString(v.Name))
		}
		vals = append(vals, v)
	}
	n = d.Count(16, "bootstrap symbols length")
	syms := make([]BootstrapSymbol, 0, n)
	seen = nil
	for i := 0; i < n && d.err == nil; i++ {
		off := d.off
		s := bootstrapSymbolCodec{}.Decode(d)
		if d.err == nil && dupName(len(syms), func(j int) string { return syms[j].Name }, &seen, s.Name) {
			d.failAt(off, "bootstrap symbol name", "duplicate key "+keyString(s.Name))
		}
		syms = append(syms, s)
	}
	if d.Failed() {
		return SetupInfo{}
	}
	if c.noMap {
		vals = nil
	}
	return SetupInfo{Triple: t, PageSize: p, Values: vals, Symbols: syms}
}

func (c setupInfoCodec) MinSize() int {
	if c.noMap {
		return 24
	}
	return 32
}

// dupName reports whether name is among the first n names (name(j)) and
// records it; see isDuplicate.
func dupName(n int, name func(int) string, seen *map[string]struct{}, k string) bool {
	const scanLimit = 16
	if n < scanLimit {
		for j := range n {
			if name(j) == k {
				return true
			}
		}
		return false
	}
	if *seen == nil {
		*seen = make(map[string]struct{}, 2*n)
		for j := range n {
			(*seen)[name(j)] = struct{}{}
		}
	}
	if _, dup := (*seen)[k]; dup {
		return true
	}
	(*seen)[k] = struct{}{}
	return false
}

// Validate reports a SetupInfo that LLVM's controller would refuse to
// decode: a name that occurs twice in Values or in Symbols.
func (s *SetupInfo) Validate() error {
	seen := make(map[string]struct{}, len(s.Values))
	for _, v := range s.Values {
		if _, dup := seen[v.Name]; dup {
			return fmt.Errorf("sps: setup: duplicate bootstrap map key %s", keyString(v.Name))
		}
		seen[v.Name] = struct{}{}
	}
	clear(seen)
	for _, v := range s.Symbols {
		if _, dup := seen[v.Name]; dup {
			return fmt.Errorf("sps: setup: duplicate bootstrap symbol name %s", keyString(v.Name))
		}
		seen[v.Name] = struct{}{}
	}
	return nil
}
