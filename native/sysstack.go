//go:build cgo && !go1.27

package native

/*
#include "native.h"
*/
import "C"

import "unsafe"

// asmcgocall is the runtime's switch to the system stack (g0) and back,
// without the scheduler's entersyscall and exitsyscall that cgocall adds.
// It links by the linker's exemption for ABI wrappers, not by a push
// linkname, so a later Go release may refuse it: the build tag keeps
// this file to the releases it was checked on (RATIONALE.md, "Call
// tiers"), and sysstack_off.go stands in after them.
//
//go:linkname asmcgocall runtime.asmcgocall
//go:noescape
func asmcgocall(fn, arg unsafe.Pointer) int32

// SystemStackCalls reports whether the SystemStack calls run on the
// system stack in this build; when false they are cgo calls.
const SystemStackCalls = true

// The system-stack calls' C functions: the callee cannot call back into
// Go, so the frame stays where it is and takes the result directly.
var (
	ints4Fixed      = unsafe.Pointer(C.orcrt_ints4_fixed)
	regs4IntFixed   = unsafe.Pointer(C.orcrt_regs4_int_fixed)
	regs4FloatFixed = unsafe.Pointer(C.orcrt_regs4_float_fixed)
)

// SystemStackInts4 is [CallInts4Ret64] on the thread's system stack,
// without telling the scheduler: Go's garbage collector and preemption
// wait for it. Only for functions that neither block nor call into Go.
func SystemStackInts4(f *IntsFrame) { asmcgocall(ints4Fixed, unsafe.Pointer(f)) }

// SystemStackRegs4Int is [CallRegs4Int] as [SystemStackInts4] calls.
func SystemStackRegs4Int(f *RegsFrame) { asmcgocall(regs4IntFixed, unsafe.Pointer(f)) }

// SystemStackRegs4Float is [CallRegs4Float] as [SystemStackInts4] calls.
func SystemStackRegs4Float(f *RegsFrame) { asmcgocall(regs4FloatFixed, unsafe.Pointer(f)) }

func systemStackCall(fn, arg unsafe.Pointer) { asmcgocall(fn, arg) }
