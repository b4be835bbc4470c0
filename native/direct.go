package native

/*
#include "native.h"
*/
import "C"

import "unsafe"

// cgocall is the runtime's entry into C that cgo's generated Go wrappers
// call. The calls below call it directly with a frame of their own: no
// generated Go wrapper (18 instructions per call, cachegrind), and
// CallInts4Ret32's result returns in cgocall's int32, so its C side skips
// the two _cgo_topofstack calls too (29 instructions of C wrapper -> 9).
// The runtime keeps cgocall's signature for such callers
// (go.dev/issue/67401).
//
//go:linkname cgocall runtime.cgocall
//go:noescape
func cgocall(fn, arg unsafe.Pointer) int32

// IntsFrame is the frame of [CallInts4Ret32] and [CallInts4Ret64] (C's
// orcrt_ints_frame): the function, its four integer or pointer arguments
// (a callee declaring fewer ignores the rest), and the result. The caller
// keeps it in its own frame and fills it with Set: a composite literal of
// it is built aside and copied, and a function taking the arguments
// instead exceeds the inlining budget.
type IntsFrame struct {
	Fn             uintptr
	A0, A1, A2, A3 uint64
	R              uint64
}

// IntsFrame has the size of C's orcrt_ints_frame (else this is an
// out-of-range index, a compile error).
var _ = [1]int{}[unsafe.Sizeof(IntsFrame{})-C.sizeof_orcrt_ints_frame]

// Set fills f for a call of fn. (Every field: then f is not zeroed first.)
func (f *IntsFrame) Set(fn uintptr, a0, a1, a2, a3 uint64) {
	f.Fn, f.A0, f.A1, f.A2, f.A3, f.R = fn, a0, a1, a2, a3, 0
}

// RegsFrame is the frame of [CallRegs4Int] and [CallRegs4Float] (C's
// orcrt_regs_frame): the function, the words of [Regs4] (W[0:4] the
// integer arguments, W[4:8] the floating ones' bit patterns), and the
// result.
type RegsFrame struct {
	Fn uintptr
	W  [8]uint64
	R  uint64
}

var _ = [1]int{}[unsafe.Sizeof(RegsFrame{})-C.sizeof_orcrt_regs_frame]

// The C functions, loaded once (C.f as a value is a call).
var (
	ints4Ret32 = unsafe.Pointer(C.orcrt_ints4_ret32)
	ints4Ret64 = unsafe.Pointer(C.orcrt_ints4_ret64)
	regs4Int   = unsafe.Pointer(C.orcrt_regs4_int)
	regs4Float = unsafe.Pointer(C.orcrt_regs4_float)
)

// CallInts4Ret32 calls f.Fn with f's arguments, for a result of at most
// 32 bits (C int and narrower, bool, void): it returns the low 32 bits of
// the result register, and leaves f.R alone. f.Fn must not be 0.
func CallInts4Ret32(f *IntsFrame) uint32 { return uint32(cgocall(ints4Ret32, unsafe.Pointer(f))) }

// CallInts4Ret64 calls f.Fn with f's arguments and stores the result
// register in f.R. f.Fn must not be 0.
func CallInts4Ret64(f *IntsFrame) { cgocall(ints4Ret64, unsafe.Pointer(f)) }

// CallRegs4Int calls f.Fn with f's words and stores its integer result
// register in f.R. f.Fn must not be 0.
func CallRegs4Int(f *RegsFrame) { cgocall(regs4Int, unsafe.Pointer(f)) }

// CallRegs4Float is CallRegs4Int for a floating result: f.R is the bit
// pattern of the double (a float's in the low 32 bits).
func CallRegs4Float(f *RegsFrame) { cgocall(regs4Float, unsafe.Pointer(f)) }
