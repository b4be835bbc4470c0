package native

/*
#include "native.h"
*/
import "C"

import "unsafe"

// The kinds of SliceFrame's elements: their size in bytes (1, 2, 4 or 8;
// 0 for a void result) or'ed with these flags, and for an argument its
// register word (as RegsFrame.W's index) shifted by KindSlotShift.
const (
	KindSigned    = C.ORCRT_KIND_SIGNED
	KindFloat     = C.ORCRT_KIND_FLOAT
	KindBool      = C.ORCRT_KIND_BOOL
	KindSlotShift = C.ORCRT_KIND_SLOT
)

// SliceFrame is the frame of [CallSlice] (C's orcrt_slice_frame): Fn is
// called N times, Out[i] = Fn(In[0][i], ..., In[NArgs-1][i]), with the
// elements' kinds in InKind and OutKind.
type SliceFrame struct {
	Fn      uintptr
	In      [4]unsafe.Pointer
	Out     unsafe.Pointer
	N       uint64
	InKind  [4]uint32
	OutKind uint32
	NArgs   uint32
}

var _ = [1]int{}[unsafe.Sizeof(SliceFrame{})-C.sizeof_orcrt_slice_frame]

var callSlice = unsafe.Pointer(C.orcrt_call_slice)

// escapeSink makes the slices' elements escape to the heap, which does
// not move, as cgo's _Cgo_use does for a pointer argument: JIT'd code
// that calls back into Go may grow (move) the goroutine's stack.
var escapeSink struct {
	on bool
	p  unsafe.Pointer
}

//go:noinline
func escape(p unsafe.Pointer) {
	if escapeSink.on {
		escapeSink.p = p
	}
}

// heap makes f's element arrays escape (see escapeSink).
func (f *SliceFrame) heap() {
	for _, p := range f.In[:f.NArgs] {
		escape(p)
	}
	escape(f.Out)
}

// CallSlice runs f's loop in one cgo call. f.Fn must not be 0, and each
// array must hold N elements of its kind's size.
func CallSlice(f *SliceFrame) {
	f.heap()
	cgocall(callSlice, unsafe.Pointer(f))
}

// SystemStackSlice is [CallSlice] as [SystemStackInts4] calls: the
// whole loop holds off Go's garbage collector.
func SystemStackSlice(f *SliceFrame) {
	f.heap()
	systemStackCall(callSlice, unsafe.Pointer(f))
}
