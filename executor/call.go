//go:build cgo

package executor

import "github.com/orcgo/orcrt/call"

// The call API moved to package call; these are its old names.

// Deprecated: use call.Scalar.
type Scalar = call.Scalar

// Deprecated: use call.Void.
type Void = call.Void

// Deprecated: use call.Result.
type Result = call.Result

// Deprecated: use call.Regs.
type Regs = call.Regs

// Deprecated: use call.IntArgRegs and call.FloatArgRegs.
const (
	IntArgRegs   = call.IntArgRegs
	FloatArgRegs = call.FloatArgRegs
)

// Deprecated: use call.Func0.
type Func0[R call.Result] = call.Func0[R]

// Deprecated: use call.Func1.
type Func1[R call.Result, A1 call.Scalar] = call.Func1[R, A1]

// Deprecated: use call.Func2.
type Func2[R call.Result, A1, A2 call.Scalar] = call.Func2[R, A1, A2]

// Deprecated: use call.Func3.
type Func3[R call.Result, A1, A2, A3 call.Scalar] = call.Func3[R, A1, A2, A3]

// Deprecated: use call.Func4.
type Func4[R call.Result, A1, A2, A3, A4 call.Scalar] = call.Func4[R, A1, A2, A3, A4]

// Deprecated: use call.RawFunc.
type RawFunc = call.RawFunc

// Deprecated: use call.Typed0.
func Typed0[R call.Result](f call.Func) call.Func0[R] { return call.Typed0[R](f) }

// Deprecated: use call.Typed1.
func Typed1[R call.Result, A1 call.Scalar](f call.Func) call.Func1[R, A1] {
	return call.Typed1[R, A1](f)
}

// Deprecated: use call.Typed2.
func Typed2[R call.Result, A1, A2 call.Scalar](f call.Func) call.Func2[R, A1, A2] {
	return call.Typed2[R, A1, A2](f)
}

// Deprecated: use call.Typed3.
func Typed3[R call.Result, A1, A2, A3 call.Scalar](f call.Func) call.Func3[R, A1, A2, A3] {
	return call.Typed3[R, A1, A2, A3](f)
}

// Deprecated: use call.Typed4.
func Typed4[R call.Result, A1, A2, A3, A4 call.Scalar](f call.Func) call.Func4[R, A1, A2, A3, A4] {
	return call.Typed4[R, A1, A2, A3, A4](f)
}

// Deprecated: use call.Raw.
func Raw(f call.Func, ints, floats int, floatResult bool) (call.RawFunc, error) {
	return call.Raw(f, ints, floats, floatResult)
}
