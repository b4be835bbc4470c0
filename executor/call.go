//go:build cgo

package executor

import (
	"reflect"
	"unsafe"

	"github.com/orcgo/orcrt/rt/native"
)

// Scalar is what a typed call passes and returns in registers: integers
// of every width, uintptr (pointers: the cgo rules on passing Go memory to
// C apply), bool, float32 and float64.
type Scalar interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int |
		~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint | ~uintptr |
		~bool | ~float32 | ~float64
}

// Regs are the argument registers of a raw call ([Func.CallRaw]).
type Regs = native.Regs

// class is how a Scalar type travels: its size, and whether it is signed
// or floating.
type class struct {
	size                     uint8
	signed, isFloat, boolean bool
}

// classOf classifies T (once, when a typed form is made).
func classOf[T Scalar]() class {
	t := reflect.TypeFor[T]()
	k := t.Kind()
	return class{
		size:    uint8(t.Size()),
		signed:  k >= reflect.Int && k <= reflect.Int64,
		isFloat: k == reflect.Float32 || k == reflect.Float64,
		boolean: k == reflect.Bool,
	}
}

// toBits widens v to its register's 64 bits: sign- or zero-extended, or
// a float's bit pattern.
func toBits[T Scalar](c class, v T) uint64 {
	p := unsafe.Pointer(&v)
	switch c.size {
	case 1:
		if c.signed {
			return uint64(int64(*(*int8)(p)))
		}
		return uint64(*(*uint8)(p))
	case 2:
		if c.signed {
			return uint64(int64(*(*int16)(p)))
		}
		return uint64(*(*uint16)(p))
	case 4:
		if c.signed {
			return uint64(int64(*(*int32)(p)))
		}
		return uint64(*(*uint32)(p))
	}
	return *(*uint64)(p)
}

// fromBits narrows a result register to T: only the low bits the C type
// has are defined.
func fromBits[T Scalar](c class, b uint64) T {
	var r T
	p := unsafe.Pointer(&r)
	switch c.size {
	case 1:
		*(*uint8)(p) = uint8(b)
		if c.boolean && uint8(b) != 0 {
			*(*uint8)(p) = 1 // C's bool is 0 or 1 in the low byte
		}
	case 2:
		*(*uint16)(p) = uint16(b)
	case 4:
		*(*uint32)(p) = uint32(b)
	default:
		*(*uint64)(p) = b
	}
	return r
}

// sig is a Func with the classes of its arguments and result.
type sig struct {
	f    Func
	args [4]class
	ret  class
}

// regs places the argument bits: integer classes in the integer registers
// in order, floating ones in the vector registers.
func (s *sig) regs(n int, a [4]uint64) native.Regs4 {
	var r native.Regs4
	ni, nf := 0, 0
	for i := range n {
		if s.args[i].isFloat {
			r.Float[nf] = a[i]
			nf++
		} else {
			r.Int[ni] = a[i]
			ni++
		}
	}
	return r
}

// call makes a guarded call with n arguments a.
func call[R Scalar](s *sig, n int, a [4]uint64) (R, error) {
	tok, err := s.f.enter()
	if err != nil {
		var zero R
		return zero, err
	}
	r := s.regs(n, a)
	b := native.CallRegs4(s.f.addr, &r, s.ret.isFloat)
	tok.Release()
	return fromBits[R](s.ret, b), nil
}

// callHeld is call inside a Batch.
func callHeld[R Scalar](s *sig, n int, a [4]uint64) R {
	r := s.regs(n, a)
	return fromBits[R](s.ret, native.CallRegs4(s.f.addr, &r, s.ret.isFloat))
}

// Func0 is a JIT'd function R f(void). For a void C function take any
// integer R and ignore it. Make one with [Typed0]; Func1 to Func4 take 1
// to 4 arguments. Call pins the code as [Func.Call] does; CallHeld is for
// use inside [Func.Batch]. Calls do not allocate.
type Func0[R Scalar] struct{ s sig }

// Func1 is a JIT'd function R f(A1); see [Func0].
type Func1[R, A1 Scalar] struct{ s sig }

// Func2 is a JIT'd function R f(A1, A2); see [Func0].
type Func2[R, A1, A2 Scalar] struct{ s sig }

// Func3 is a JIT'd function R f(A1, A2, A3); see [Func0].
type Func3[R, A1, A2, A3 Scalar] struct{ s sig }

// Func4 is a JIT'd function R f(A1, A2, A3, A4); see [Func0].
type Func4[R, A1, A2, A3, A4 Scalar] struct{ s sig }

// Typed0 types f as R f(void).
func Typed0[R Scalar](f Func) Func0[R] {
	return Func0[R]{sig{f: f, ret: classOf[R]()}}
}

// Typed1 types f as R f(A1): Typed1[int64, int64](f) for
// int64_t f(int64_t).
func Typed1[R, A1 Scalar](f Func) Func1[R, A1] {
	return Func1[R, A1]{sig{f: f, ret: classOf[R](), args: [4]class{classOf[A1]()}}}
}

// Typed2 types f as R f(A1, A2).
func Typed2[R, A1, A2 Scalar](f Func) Func2[R, A1, A2] {
	return Func2[R, A1, A2]{sig{f: f, ret: classOf[R](), args: [4]class{classOf[A1](), classOf[A2]()}}}
}

// Typed3 types f as R f(A1, A2, A3).
func Typed3[R, A1, A2, A3 Scalar](f Func) Func3[R, A1, A2, A3] {
	return Func3[R, A1, A2, A3]{sig{f: f, ret: classOf[R](), args: [4]class{classOf[A1](), classOf[A2](), classOf[A3]()}}}
}

// Typed4 types f as R f(A1, A2, A3, A4).
func Typed4[R, A1, A2, A3, A4 Scalar](f Func) Func4[R, A1, A2, A3, A4] {
	return Func4[R, A1, A2, A3, A4]{sig{f: f, ret: classOf[R](), args: [4]class{classOf[A1](), classOf[A2](), classOf[A3](), classOf[A4]()}}}
}

// Func returns the untyped Func (for its Batch).
func (t Func0[R]) Func() Func { return t.s.f }

// Func returns the untyped Func (for its Batch).
func (t Func1[R, A1]) Func() Func { return t.s.f }

// Func returns the untyped Func (for its Batch).
func (t Func2[R, A1, A2]) Func() Func { return t.s.f }

// Func returns the untyped Func (for its Batch).
func (t Func3[R, A1, A2, A3]) Func() Func { return t.s.f }

// Func returns the untyped Func (for its Batch).
func (t Func4[R, A1, A2, A3, A4]) Func() Func { return t.s.f }

// Call calls the function.
func (t Func0[R]) Call() (R, error) { return call[R](&t.s, 0, [4]uint64{}) }

// CallHeld calls the function inside [Func.Batch].
func (t Func0[R]) CallHeld() R { return callHeld[R](&t.s, 0, [4]uint64{}) }

// Call calls the function.
func (t Func1[R, A1]) Call(a1 A1) (R, error) {
	return call[R](&t.s, 1, [4]uint64{toBits(t.s.args[0], a1)})
}

// CallHeld calls the function inside [Func.Batch].
func (t Func1[R, A1]) CallHeld(a1 A1) R {
	return callHeld[R](&t.s, 1, [4]uint64{toBits(t.s.args[0], a1)})
}

// Call calls the function.
func (t Func2[R, A1, A2]) Call(a1 A1, a2 A2) (R, error) {
	return call[R](&t.s, 2, [4]uint64{toBits(t.s.args[0], a1), toBits(t.s.args[1], a2)})
}

// CallHeld calls the function inside [Func.Batch].
func (t Func2[R, A1, A2]) CallHeld(a1 A1, a2 A2) R {
	return callHeld[R](&t.s, 2, [4]uint64{toBits(t.s.args[0], a1), toBits(t.s.args[1], a2)})
}

// Call calls the function.
func (t Func3[R, A1, A2, A3]) Call(a1 A1, a2 A2, a3 A3) (R, error) {
	return call[R](&t.s, 3, [4]uint64{toBits(t.s.args[0], a1), toBits(t.s.args[1], a2), toBits(t.s.args[2], a3)})
}

// CallHeld calls the function inside [Func.Batch].
func (t Func3[R, A1, A2, A3]) CallHeld(a1 A1, a2 A2, a3 A3) R {
	return callHeld[R](&t.s, 3, [4]uint64{toBits(t.s.args[0], a1), toBits(t.s.args[1], a2), toBits(t.s.args[2], a3)})
}

// Call calls the function.
func (t Func4[R, A1, A2, A3, A4]) Call(a1 A1, a2 A2, a3 A3, a4 A4) (R, error) {
	return call[R](&t.s, 4, [4]uint64{toBits(t.s.args[0], a1), toBits(t.s.args[1], a2), toBits(t.s.args[2], a3), toBits(t.s.args[3], a4)})
}

// CallHeld calls the function inside [Func.Batch].
func (t Func4[R, A1, A2, A3, A4]) CallHeld(a1 A1, a2 A2, a3 A3, a4 A4) R {
	return callHeld[R](&t.s, 4, [4]uint64{toBits(t.s.args[0], a1), toBits(t.s.args[1], a2), toBits(t.s.args[2], a3), toBits(t.s.args[3], a4)})
}

// CallRaw calls the function with any register-only signature: r's
// integer and floating registers in the order the C signature lists them
// by kind (amd64 passes 6 integer and 8 floating arguments in registers,
// arm64 8 and 8: more is not supported, nor are variadic functions). It
// returns the integer result register, or with floatResult the floating
// one's bit pattern (math.Float64frombits; a float's is in the low 32
// bits).
func (f Func) CallRaw(r *Regs, floatResult bool) (uint64, error) {
	tok, err := f.enter()
	if err != nil {
		return 0, err
	}
	b := native.CallRegs(f.addr, r, floatResult)
	tok.Release()
	return b, nil
}
