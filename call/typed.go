//go:build cgo

package call

import (
	"reflect"
	"unsafe"

	"github.com/orcgo/orcrt/rt/keepalive"
)

// Scalar is what a typed call passes in registers: integers of every
// width, uintptr and unsafe.Pointer (C pointers; Go memory must be pinned
// and kept alive by the caller, as for cgo), bool, float32 and float64.
type Scalar interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int |
		~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint | ~uintptr |
		~bool | ~float32 | ~float64 | ~unsafe.Pointer
}

// Void is the result type of a C function returning void.
type Void struct{}

// Result is what a typed call returns: a Scalar or Void.
type Result interface{ Scalar | Void }

// A class byte says how one argument or the result travels; a sig packs
// them in one word so that typed forms stay register-sized values.
const (
	cSigned = 1 << 0 // sign-extend (else zero-extend)
	cFloat  = 1 << 1 // a floating-point register
	cBool   = 1 << 2 // C bool: only the low byte is defined
	cSlot   = 3      // bits 3-5: the word of native.Regs4 (0-3 Int, 4-7 Float)
	cWide   = 1 << 6 // wider than 32 bits
	retByte = 4      // the result's class is byte 4 of sig.code
)

// classOf classifies T once, when a typed form is made.
func classOf[T Result]() uint8 {
	var c uint8
	t := reflect.TypeFor[T]()
	if t.Size() > 4 {
		c = cWide
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		c |= cSigned
	case reflect.Float32, reflect.Float64:
		c |= cFloat
	case reflect.Bool:
		c |= cBool
	}
	return c
}

// toBits widens v to its register's 64 bits: sign- or zero-extended, or
// a float's bit pattern (a float32 in the low 32 bits). The switch on
// v's size, a constant of each instantiation, compiles away; v loaded as
// the unsigned integer of its size stays in its register (with fromBits:
// 5 instructions fewer per call than through a uint64 in memory).
func toBits[T Scalar](c uint8, v T) uint64 {
	var w uint64
	switch p := unsafe.Pointer(&v); unsafe.Sizeof(v) {
	case 1:
		w = uint64(*(*uint8)(p))
	case 2:
		w = uint64(*(*uint16)(p))
	case 4:
		w = uint64(*(*uint32)(p))
	default:
		w = *(*uint64)(p)
	}
	if c&cSigned != 0 {
		sh := 64 - 8*unsafe.Sizeof(v)
		return uint64(int64(w<<sh) >> sh)
	}
	return w
}

// fromBits narrows a result register to R: its low bytes, all the C type
// defines. As in toBits, R's size selects the store.
func fromBits[R Result](code uint64, b uint64) R {
	var r R
	switch p := unsafe.Pointer(&r); unsafe.Sizeof(r) {
	case 0: // Void
	case 1:
		if uint8(code>>(8*retByte))&cBool != 0 && uint8(b) != 0 {
			b = 1 // a Go bool must be 0 or 1
		}
		*(*uint8)(p) = uint8(b)
	case 2:
		*(*uint16)(p) = uint16(b)
	case 4:
		*(*uint32)(p) = uint32(b)
	default:
		*(*uint64)(p) = b
	}
	return r
}

// sig is a Func with the class bytes of its arguments (bytes 0-3) and
// result (byte 4), its tiers (bytes 5-6) and flags in code. Func.pinned
// is a flag too: at 32 bytes a sig is an SSA value, passed and kept in
// registers (at 40, a typed form's Call stored its receiver to memory
// first).
type sig struct {
	guard   *keepalive.Group
	session *keepalive.Group
	addr    uintptr
	code    uint64
}

// Flags of sig.code. fpRegs: a floating argument or result, so
// native.CallRegs4; else wideRet: a result wider than 32 bits, so
// native.CallInts4Ret64; else native.CallInts4Ret32.
const (
	fpRegs    = 1 << 63
	wideRet   = 1 << 62
	sigPinned = 1 << 61 // Func.pinned
)

// newSig lays the arguments out: integer classes in the integer registers
// in order, floating ones in the vector registers.
func newSig(f Func, ret uint8, args ...uint8) sig {
	s := sig{guard: f.guard, session: f.session, addr: f.addr, code: uint64(ret) << (8 * retByte)}
	if ret&cFloat != 0 {
		s.code |= fpRegs
	}
	if ret&cWide != 0 {
		s.code |= wideRet
	}
	if f.pinned {
		s.code |= sigPinned
	}
	s.code |= uint64(f.tiers) << tiersPos
	ni, nf := uint8(0), uint8(4)
	for i, c := range args {
		slot := &ni
		if c&cFloat != 0 {
			slot = &nf
			s.code |= fpRegs
		}
		s.code |= uint64(c|*slot<<cSlot) << (8 * i)
		*slot++
	}
	return s
}

// fn is the Func s was made from.
func (s sig) fn() Func {
	return Func{guard: s.guard, session: s.session, addr: s.addr, pinned: s.code&sigPinned != 0, tiers: tiers(s.code >> tiersPos)}
}

// bits is argument i as its register word.
func bits[T Scalar](code uint64, i int, v T) uint64 { return toBits(uint8(code>>(8*i)), v) }

// Func0 is a JIT'd function R f(void) (R = [Void] for a void one). Make
// one with [Typed0]; Func1 to Func4 take 1 to 4 arguments. Call pins the
// code as [Func.Call] does; CallHeld is for use inside [Func.Batch].
// Calls do not allocate.
type Func0[R Result] struct{ s sig }

// Func1 is a JIT'd function R f(A1); see [Func0].
type Func1[R Result, A1 Scalar] struct{ s sig }

// Func2 is a JIT'd function R f(A1, A2); see [Func0].
type Func2[R Result, A1, A2 Scalar] struct{ s sig }

// Func3 is a JIT'd function R f(A1, A2, A3); see [Func0].
type Func3[R Result, A1, A2, A3 Scalar] struct{ s sig }

// Func4 is a JIT'd function R f(A1, A2, A3, A4); see [Func0].
type Func4[R Result, A1, A2, A3, A4 Scalar] struct{ s sig }

// Typed0 types f as R f(void). Every typed form fits in registers on
// every platform: at most 4 arguments of each kind.
func Typed0[R Result](f Func) Func0[R] { return Func0[R]{newSig(f, classOf[R]())} }

// Typed1 types f as R f(A1): Typed1[int64, int64](f) for
// int64_t f(int64_t), Typed1[Void, uintptr](f) for void f(void *).
func Typed1[R Result, A1 Scalar](f Func) Func1[R, A1] {
	return Func1[R, A1]{newSig(f, classOf[R](), classOf[A1]())}
}

// Typed2 types f as R f(A1, A2).
func Typed2[R Result, A1, A2 Scalar](f Func) Func2[R, A1, A2] {
	return Func2[R, A1, A2]{newSig(f, classOf[R](), classOf[A1](), classOf[A2]())}
}

// Typed3 types f as R f(A1, A2, A3).
func Typed3[R Result, A1, A2, A3 Scalar](f Func) Func3[R, A1, A2, A3] {
	return Func3[R, A1, A2, A3]{newSig(f, classOf[R](), classOf[A1](), classOf[A2](), classOf[A3]())}
}

// Typed4 types f as R f(A1, A2, A3, A4).
func Typed4[R Result, A1, A2, A3, A4 Scalar](f Func) Func4[R, A1, A2, A3, A4] {
	return Func4[R, A1, A2, A3, A4]{newSig(f, classOf[R](), classOf[A1](), classOf[A2](), classOf[A3](), classOf[A4]())}
}

// Func returns the untyped Func (for its Batch).
func (t Func0[R]) Func() Func { return t.s.fn() }

// Func returns the untyped Func (for its Batch).
func (t Func1[R, A1]) Func() Func { return t.s.fn() }

// Func returns the untyped Func (for its Batch).
func (t Func2[R, A1, A2]) Func() Func { return t.s.fn() }

// Func returns the untyped Func (for its Batch).
func (t Func3[R, A1, A2, A3]) Func() Func { return t.s.fn() }

// Func returns the untyped Func (for its Batch).
func (t Func4[R, A1, A2, A3, A4]) Func() Func { return t.s.fn() }

// Call calls the function.
func (t Func0[R]) Call() (R, error) {
	b, err := t.s.call(0, 0, 0, 0)
	return fromBits[R](t.s.code, b), err
}

// CallHeld calls the function inside [Func.Batch].
func (t Func0[R]) CallHeld() R { return fromBits[R](t.s.code, t.s.callHeld(0, 0, 0, 0)) }

// Call calls the function.
func (t Func1[R, A1]) Call(a1 A1) (R, error) {
	b, err := t.s.call(bits(t.s.code, 0, a1), 0, 0, 0)
	return fromBits[R](t.s.code, b), err
}

// CallHeld calls the function inside [Func.Batch].
func (t Func1[R, A1]) CallHeld(a1 A1) R {
	return fromBits[R](t.s.code, t.s.callHeld(bits(t.s.code, 0, a1), 0, 0, 0))
}

// Call calls the function.
func (t Func2[R, A1, A2]) Call(a1 A1, a2 A2) (R, error) {
	b, err := t.s.call(bits(t.s.code, 0, a1), bits(t.s.code, 1, a2), 0, 0)
	return fromBits[R](t.s.code, b), err
}

// CallHeld calls the function inside [Func.Batch].
func (t Func2[R, A1, A2]) CallHeld(a1 A1, a2 A2) R {
	return fromBits[R](t.s.code, t.s.callHeld(bits(t.s.code, 0, a1), bits(t.s.code, 1, a2), 0, 0))
}

// Call calls the function.
func (t Func3[R, A1, A2, A3]) Call(a1 A1, a2 A2, a3 A3) (R, error) {
	b, err := t.s.call(bits(t.s.code, 0, a1), bits(t.s.code, 1, a2), bits(t.s.code, 2, a3), 0)
	return fromBits[R](t.s.code, b), err
}

// CallHeld calls the function inside [Func.Batch].
func (t Func3[R, A1, A2, A3]) CallHeld(a1 A1, a2 A2, a3 A3) R {
	return fromBits[R](t.s.code, t.s.callHeld(bits(t.s.code, 0, a1), bits(t.s.code, 1, a2), bits(t.s.code, 2, a3), 0))
}

// Call calls the function.
func (t Func4[R, A1, A2, A3, A4]) Call(a1 A1, a2 A2, a3 A3, a4 A4) (R, error) {
	b, err := t.s.call(bits(t.s.code, 0, a1), bits(t.s.code, 1, a2), bits(t.s.code, 2, a3), bits(t.s.code, 3, a4))
	return fromBits[R](t.s.code, b), err
}

// CallHeld calls the function inside [Func.Batch].
func (t Func4[R, A1, A2, A3, A4]) CallHeld(a1 A1, a2 A2, a3 A3, a4 A4) R {
	return fromBits[R](t.s.code, t.s.callHeld(bits(t.s.code, 0, a1), bits(t.s.code, 1, a2), bits(t.s.code, 2, a3), bits(t.s.code, 3, a4)))
}
