//go:build cgo

package executor_test

import (
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/rt/native"
	"github.com/orcgo/orcrt/rt/svctest"
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
int64_t ints8(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e, int64_t f, int64_t g, int64_t h) {
  return a + 2*b + 3*c + 4*d + 5*e + 6*f + 7*g + 8*h;
}
double floats8(double a, double b, double c, double d, double e, double f, double g, double h) {
  return a + 2*b + 3*c + 4*d + 5*e + 6*f + 7*g + 8*h;
}
int64_t noop64(int64_t x) { return x; }
`

func sigFuncs(t testing.TB) (*executor.Executor, func(string) executor.Func) {
	ex, err := executor.New(executor.Options{})
	require.NoError(t, err)
	t.Cleanup(ex.Close)
	h, err := native.Dlopen(svctest.BuildSharedObject(t, "orcrtsigs", sigSource), native.RTLD_NOW|native.RTLD_LOCAL)
	require.NoError(t, err)
	return ex, func(name string) executor.Func {
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
	assert.Equal(t, int8(-5), must(executor.Typed1[int8, int8](fn("s8_neg")).Call(5)))
	assert.Equal(t, int8(127), must(executor.Typed1[int8, int8](fn("s8_neg")).Call(-127)))
	assert.Equal(t, uint8(0), must(executor.Typed1[uint8, uint8](fn("u8_inc")).Call(255)), "wraps in 8 bits")
	assert.Equal(t, int16(-300), must(executor.Typed1[int16, int16](fn("s16_neg")).Call(300)))
	assert.Equal(t, uint16(0), must(executor.Typed1[uint16, uint16](fn("u16_inc")).Call(65535)))
	assert.Equal(t, int32(-7), must(executor.Typed2[int32, int32, int32](fn("s32_sub")).Call(-3, 4)))
	assert.Equal(t, uint32(0), must(executor.Typed1[uint32, uint32](fn("u32_inc")).Call(math.MaxUint32)))
	assert.Equal(t, int64(1<<40+2-3+4), must(executor.Typed4[int64, int64, float64, int32, float32](fn("s64_mix")).Call(1<<40, 2.5, -3, 4.75)),
		"integer and floating arguments interleaved")
	assert.Equal(t, uint64(1<<63|6), must(executor.Typed3[uint64, uint64, uint64, uint64](fn("u64_xor")).Call(1<<63|1, 2, 5)))
	v := int64(-42)
	assert.Equal(t, uintptr(math.MaxUint64-41), must(executor.Typed1[uintptr, uintptr](fn("ptr_deref")).Call(uintptr(unsafe.Pointer(&v)))))
	assert.Equal(t, float32(7.5), must(executor.Typed2[float32, float32, float32](fn("f32_mul")).Call(2.5, 3)))
	assert.Equal(t, 0.5*-4+0.25, must(executor.Typed3[float64, float64, int32, float64](fn("f64_fma")).Call(0.5, -4, 0.25)))
	assert.Equal(t, true, must(executor.Typed1[bool, int64](fn("is_odd")).Call(3)))
	assert.Equal(t, false, must(executor.Typed1[bool, int64](fn("is_odd")).Call(4)))
	assert.Equal(t, int32(7), must(executor.Typed0[int32](fn("seven")).Call()))
	type myInt int64
	assert.Equal(t, myInt(9), must(executor.Typed1[myInt, myInt](fn("noop64")).Call(9)), "named types")
}

func TestCallRaw(t *testing.T) {
	_, fn := sigFuncs(t)
	n := min(native.IntRegs, 8)
	var r executor.Regs
	want := int64(0)
	for i := range n {
		r.Int[i] = uint64(i + 1)
		want += int64((i + 1) * (i + 1))
	}
	if n < 8 {
		t.Logf("%d integer registers: ints8 sees only the first %d arguments here; the rest are garbage", n, n)
	} else {
		b, err := fn("ints8").CallRaw(&r, false)
		require.NoError(t, err)
		assert.Equal(t, want, int64(b))
	}
	r = executor.Regs{}
	wantF := 0.0
	for i := range 8 {
		r.Float[i] = math.Float64bits(float64(i) + 0.5)
		wantF += float64(i+1) * (float64(i) + 0.5)
	}
	b, err := fn("floats8").CallRaw(&r, true)
	require.NoError(t, err)
	assert.Equal(t, wantF, math.Float64frombits(b), "8 floating arguments")
	r = executor.Regs{}
	for i := range 6 {
		r.Int[i] = uint64(i + 1)
	}
	b, err = fn("ints8").CallRaw(&r, false)
	require.NoError(t, err)
	assert.Equal(t, int64(1+4+9+16+25+36), int64(b), "6 integer arguments, the rest zero")
}

func TestTypedCallsAllocationFree(t *testing.T) {
	_, fn := sigFuncs(t)
	mix := executor.Typed4[int64, int64, float64, int32, float32](fn("s64_mix"))
	f32 := executor.Typed2[float32, float32, float32](fn("f32_mul"))
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = mix.Call(1, 2, 3, 4) }), "Typed4.Call")
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = f32.Call(1, 2) }), "Typed2.Call")
	assert.Zero(t, testing.AllocsPerRun(1000, func() {
		_ = mix.Func().Batch(func() { mix.CallHeld(1, 2, 3, 4) })
	}), "CallHeld in a Batch")
}
