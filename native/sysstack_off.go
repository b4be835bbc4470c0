//go:build cgo && go1.27

package native

import "unsafe"

// SystemStackCalls is false: the system-stack calls have not been checked
// against this Go release (sysstack.go), so they are cgo calls.
const SystemStackCalls = false

// SystemStackInts4 is [CallInts4Ret64] in this build.
func SystemStackInts4(f *IntsFrame) { CallInts4Ret64(f) }

// SystemStackRegs4Int is [CallRegs4Int] in this build.
func SystemStackRegs4Int(f *RegsFrame) { CallRegs4Int(f) }

// SystemStackRegs4Float is [CallRegs4Float] in this build.
func SystemStackRegs4Float(f *RegsFrame) { CallRegs4Float(f) }

func systemStackCall(fn, arg unsafe.Pointer) { cgocall(fn, arg) }
