//go:build cgo

package executor_test

import (
	"fmt"
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/internal/cbuild"
	"github.com/orcgo/orcrt/internal/cmem"
	"github.com/orcgo/orcrt/native"
)

// sigSource has a callee for every argument and result class.
const sigSource = `
#include <stdint.h>
#include <stdbool.h>
int8_t s8_neg(int8_t x) { return -x; }
uint8_t u8_inc(uint8_t x) { return x + 1; }
int16_t s16_neg(int16_t x) { return -x; }
uint16_t u16_inc(uint16_t x) { return x + 1; }
int32_t s32_sub(int32_t a, int32_t b) { return a - b; }
uint32_t u32_inc(uint32_t x) { return x + 1; }
int64_t s64_mix(int64_t a, double b, int32_t c, float d) { return a + (int64_t)b + c + (int64_t)d; }
uint64_t u64_xor(uint64_t a, uint64_t b, uint64_t c) { return a ^ b ^ c; }
uintptr_t ptr_deref(const int64_t *p) { return (uintptr_t)*p; }
float f32_mul(float a, float b) { return a * b; }
double f64_fma(double a, int32_t k, double b) { return a * k + b; }
bool is_odd(int64_t x) { return x & 1; }
int32_t seven(void) { return 7; }
int64_t noop64(int64_t x) { return x; }
void store(int64_t *p, int64_t v) { *p = v; }
void nothing(void) {}
float f32_const(void) { return -1.5f; }
int64_t s8_widen(int8_t x) { return x; }
int64_t u8_widen(uint8_t x) { return x; }
char *ptr_add(char *p, uintptr_t n) { return p + n; }
double max6(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e, int64_t f,
  double x0, double x1, double x2, double x3, double x4, double x5, double x6, double x7) {
  return a + 2*b + 3*c + 4*d + 5*e + 6*f + 10*x0 + 20*x1 + 30*x2 + 40*x3 + 50*x4 + 60*x5 + 70*x6 + 80*x7;
}
double max8(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e, int64_t f, int64_t g, int64_t h,
  double x0, double x1, double x2, double x3, double x4, double x5, double x6, double x7) {
  return max6(a, b, c, d, e, f, x0, x1, x2, x3, x4, x5, x6, x7) + 7*g + 8*h;
}
`

func sigFuncs(t testing.TB) (*executor.Executor, func(string) call.Func) {
	ex, err := executor.New(executor.Options{})
	require.NoError(t, err)
	t.Cleanup(ex.Close)
	h, err := native.Dlopen(cbuild.SharedObject(t, "orcrtsigs", sigSource), native.RTLD_NOW|native.RTLD_LOCAL)
	require.NoError(t, err)
	return ex, func(name string) call.Func {
		a, err := native.Dlsym(h, name)
		require.NoError(t, err)
		f, err := ex.Func(a)
		require.NoError(t, err)
		return f
	}
}

func TestTypedCalls(t *testing.T) {
	_, fn := sigFuncs(t)
	must := func(v any, err error) any { require.NoError(t, err); return v }
	assert.Equal(t, int8(-5), must(call.Typed1[int8, int8](fn("s8_neg")).Call(5)))
	assert.Equal(t, int8(127), must(call.Typed1[int8, int8](fn("s8_neg")).Call(-127)))
	assert.Equal(t, uint8(0), must(call.Typed1[uint8, uint8](fn("u8_inc")).Call(255)), "wraps in 8 bits")
	assert.Equal(t, int16(-300), must(call.Typed1[int16, int16](fn("s16_neg")).Call(300)))
	assert.Equal(t, uint16(0), must(call.Typed1[uint16, uint16](fn("u16_inc")).Call(65535)))
	assert.Equal(t, int32(-7), must(call.Typed2[int32, int32, int32](fn("s32_sub")).Call(-3, 4)))
	assert.Equal(t, uint32(0), must(call.Typed1[uint32, uint32](fn("u32_inc")).Call(math.MaxUint32)))
	assert.Equal(t, int64(1<<40+2-3+4), must(call.Typed4[int64, int64, float64, int32, float32](fn("s64_mix")).Call(1<<40, 2.5, -3, 4.75)),
		"integer and floating arguments interleaved")
	assert.Equal(t, uint64(1<<63|6), must(call.Typed3[uint64, uint64, uint64, uint64](fn("u64_xor")).Call(1<<63|1, 2, 5)))
	v := int64(-42)
	assert.Equal(t, uintptr(math.MaxUint64-41), must(call.Typed1[uintptr, uintptr](fn("ptr_deref")).Call(uintptr(unsafe.Pointer(&v)))))
	assert.Equal(t, float32(7.5), must(call.Typed2[float32, float32, float32](fn("f32_mul")).Call(2.5, 3)))
	assert.Equal(t, 0.5*-4+0.25, must(call.Typed3[float64, float64, int32, float64](fn("f64_fma")).Call(0.5, -4, 0.25)))
	assert.Equal(t, true, must(call.Typed1[bool, int64](fn("is_odd")).Call(3)))
	assert.Equal(t, false, must(call.Typed1[bool, int64](fn("is_odd")).Call(4)))
	assert.Equal(t, int32(7), must(call.Typed0[int32](fn("seven")).Call()))
	type myInt int64
	assert.Equal(t, myInt(9), must(call.Typed1[myInt, myInt](fn("noop64")).Call(9)), "named types")
}

func TestTypedVoidAndPointers(t *testing.T) {
	_, fn := sigFuncs(t)
	p := cmem.Malloc(8)
	defer cmem.Free(p)
	store := call.Typed2[call.Void, unsafe.Pointer, int64](fn("store"))
	_, err := store.Call(cptr(p), -77)
	require.NoError(t, err)
	load := call.Typed1[int64, uintptr](fn("ptr_deref"))
	assert.Equal(t, int64(-77), must(t)(load.Call(p)), "void result; unsafe.Pointer and uintptr arguments")
	next := call.Typed2[unsafe.Pointer, unsafe.Pointer, uintptr](fn("ptr_add"))
	assert.Equal(t, cptr(p+3), must(t)(next.Call(cptr(p), 3)))
	assert.Equal(t, call.Void{}, must(t)(call.Typed0[call.Void](fn("nothing")).Call()))
	assert.Equal(t, float32(-1.5), must(t)(call.Typed0[float32](fn("f32_const")).Call()), "float result, no arguments")
	assert.Equal(t, int64(-1), must(t)(call.Typed1[int64, int8](fn("s8_widen")).Call(-1)), "int8 argument sign-extended")
	assert.Equal(t, int64(255), must(t)(call.Typed1[int64, uint8](fn("u8_widen")).Call(255)), "uint8 argument zero-extended")
}

// cptr turns a C address into an unsafe.Pointer without tripping vet's
// unsafeptr check; the memory is never Go's.
func cptr(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }

// must returns a call's result, failing t on its error.
func must(t *testing.T) func(v any, err error) any {
	return func(v any, err error) any { require.NoError(t, err); return v }
}

func TestRaw(t *testing.T) {
	_, fn := sigFuncs(t)
	var r call.Regs
	want := 0.0
	for i := range call.IntArgRegs {
		r.Int[i] = uint64(int64(-i - 1))
		want += float64((i + 1) * (-i - 1))
	}
	for i := range call.FloatArgRegs {
		r.Float[i] = math.Float64bits(float64(i) + 0.5)
		want += float64(10*(i+1)) * (float64(i) + 0.5)
	}
	name := map[int]string{6: "max6", 8: "max8"}[call.IntArgRegs]
	raw, err := call.Raw(fn(name), call.IntArgRegs, call.FloatArgRegs, true)
	require.NoError(t, err)
	b, err := raw.Call(&r)
	require.NoError(t, err)
	assert.Equal(t, want, math.Float64frombits(b), "%d integer and 8 floating arguments", call.IntArgRegs)

	r = call.Regs{}
	r.Float[0], r.Float[1] = uint64(math.Float32bits(2.5)), uint64(math.Float32bits(3))
	raw, err = call.Raw(fn("f32_mul"), 0, 2, true)
	require.NoError(t, err)
	assert.Equal(t, float32(7.5), math.Float32frombits(uint32(must(t)(raw.Call(&r)).(uint64))), "float32 in the low 32 bits")

	r = call.Regs{Int: [8]uint64{uint64(1 << 40)}}
	r.Float[0] = math.Float64bits(2.5)
	c := int32(-3)
	r.Int[1] = uint64(int64(c)) // sign-extended
	r.Float[1] = uint64(math.Float32bits(4.75))
	raw, err = call.Raw(fn("s64_mix"), 2, 2, false)
	require.NoError(t, err)
	assert.Equal(t, uint64(1<<40+2-3+4), must(t)(raw.Call(&r)), "interleaved")

	_, err = call.Raw(fn("max8"), call.IntArgRegs+1, 0, false)
	assert.ErrorContains(t, err, fmt.Sprintf("passes at most %d and 8 in registers", call.IntArgRegs))
	_, err = call.Raw(fn("max8"), 0, 9, false)
	assert.ErrorContains(t, err, "executor: raw call with 0 integer and 9 floating arguments")
}

func TestTypedCallsAfterShutdown(t *testing.T) {
	ex, fn := sigFuncs(t)
	seven := call.Typed0[int32](fn("seven"))
	raw, err := call.Raw(fn("seven"), 0, 0, false)
	require.NoError(t, err)
	ex.Close()
	_, err = seven.Call()
	assert.ErrorIs(t, err, call.ErrShutDown)
	_, err = raw.Call(&call.Regs{})
	assert.ErrorIs(t, err, call.ErrShutDown)
	_, err = call.Typed1[int32, int32](call.Func{}).Call(1)
	assert.ErrorContains(t, err, "zero Func")
}

func TestTypedCallsAllocationFree(t *testing.T) {
	_, fn := sigFuncs(t)
	seven := call.Typed0[int32](fn("seven"))
	neg := call.Typed1[int8, int8](fn("s8_neg"))
	f32 := call.Typed2[float32, float32, float32](fn("f32_mul"))
	fma := call.Typed3[float64, float64, int32, float64](fn("f64_fma"))
	mix := call.Typed4[int64, int64, float64, int32, float32](fn("s64_mix"))
	raw, err := call.Raw(fn("s64_mix"), 2, 2, false)
	require.NoError(t, err)
	var r call.Regs
	guarded := func() {
		_, _ = seven.Call()
		_, _ = neg.Call(3)
		_, _ = f32.Call(1, 2)
		_, _ = fma.Call(1, 2, 3)
		_, _ = mix.Call(1, 2, 3, 4)
		_, _ = raw.Call(&r)
	}
	assert.Zero(t, testing.AllocsPerRun(1000, guarded), "Call")
	held := func() {
		seven.CallHeld()
		neg.CallHeld(3)
		f32.CallHeld(1, 2)
		fma.CallHeld(1, 2, 3)
		mix.CallHeld(1, 2, 3, 4)
		raw.CallHeld(&r)
	}
	batch := mix.Func().Batch
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _ = batch(held) }), "CallHeld in a Batch")
}
