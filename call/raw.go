//go:build cgo

package call

import (
	"fmt"
	"runtime"

	"github.com/orcgo/orcrt/native"
)

// Regs are the argument registers of a raw call ([RawFunc]).
type Regs = native.Regs

// The argument registers raw calls may use: integer-class (amd64: 6,
// arm64: 8) and floating-point (8 on both).
const (
	IntArgRegs   = native.IntRegs
	FloatArgRegs = native.FloatRegs
)

// RawFunc is a Func called with its argument registers filled in by the
// caller ([Raw]), for signatures beyond the typed forms.
type RawFunc struct {
	f           Func
	floatResult bool
}

// Raw makes a raw form of f for a C signature with ints integer-class
// arguments (integers, bool, pointers) and floats floating-point ones, in
// any interleaving; with floatResult it returns float or double. The
// arguments must all travel in registers: at most [IntArgRegs] (amd64:
// 6, arm64: 8) and [FloatArgRegs] (8). Variadic functions, structs passed
// by value and long double are not supported.
func Raw(f Func, ints, floats int, floatResult bool) (RawFunc, error) {
	if ints < 0 || ints > IntArgRegs || floats < 0 || floats > FloatArgRegs {
		return RawFunc{}, fmt.Errorf("executor: raw call with %d integer and %d floating arguments: %s/%s passes at most %d and %d in registers, and stack arguments are not supported",
			ints, floats, runtime.GOOS, runtime.GOARCH, IntArgRegs, FloatArgRegs)
	}
	return RawFunc{f: f, floatResult: floatResult}, nil
}

// Call calls the function with r, pinning its code as [Func.Call] does.
// r.Int holds the integer-class arguments in order (narrow ones sign- or
// zero-extended per their C type), r.Float the floating ones' bit patterns
// (math.Float64bits; a float32's in the low 32 bits). It returns the
// integer result register, truncate it to the C type, or with floatResult
// the floating one's bits (math.Float64frombits, or
// math.Float32frombits(uint32(b))).
func (f RawFunc) Call(r *Regs) (uint64, error) {
	tok, err := f.f.enter()
	if err != nil {
		return 0, err
	}
	b := native.CallRegs(f.f.addr, r, f.floatResult)
	tok.Release()
	return b, nil
}

// CallHeld is Call inside [Func.Batch].
func (f RawFunc) CallHeld(r *Regs) uint64 { return native.CallRegs(f.f.addr, r, f.floatResult) }

// Func returns the untyped Func (for its Batch).
func (f RawFunc) Func() Func { return f.f }
