//go:build cgo && (amd64 || arm64)

// An external test package: it builds its C callees with svctest, which
// imports native.
package native_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/cbuild"
	"github.com/orcgo/orcrt/internal/cmem"
	"github.com/orcgo/orcrt/native"
)

// regtestSource has a callee for every argument and result class.
const regtestSource = `
#include <stdint.h>
#include <stddef.h>
int8_t s8_neg(int8_t x) { return -x; }
uint8_t u8_inc(uint8_t x) { return x + 1; }
int16_t s16_neg(int16_t x) { return -x; }
uint16_t u16_inc(uint16_t x) { return x + 1; }
int32_t s32_neg(int32_t x) { return -x; }
uint32_t u32_inc(uint32_t x) { return x + 1; }
int64_t s64_neg(int64_t x) { return -x; }
uint64_t u64_inc(uint64_t x) { return x + 1; }
// The callee sees its narrow arguments with their C values.
int64_t widen(int8_t a, uint8_t b, int16_t c, uint16_t d, int32_t e, uint32_t f) {
	return (int64_t)a * 1000000 + b * 10000 + c * 100 + d + e + (int64_t)f;
}
uintptr_t ptr_add(const char *p, size_t n) { return (uintptr_t)(p + n); }
void store(int64_t *p, int64_t v) { *p = v; }
float f32_mul(float a, float b) { return a * b; }
double f64_div(double a, double b) { return a / b; }
double f32_widen(float a) { return a; }
// Integer and floating arguments interleaved.
double mix(int32_t a, float b, int64_t c, double d, uint8_t e, float f) { return a + b + c + d + e + f; }
double max6(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e, int64_t f,
	double x0, double x1, double x2, double x3, double x4, double x5, double x6, double x7) {
	return a + 2*b + 3*c + 4*d + 5*e + 6*f + 10*x0 + 20*x1 + 30*x2 + 40*x3 + 50*x4 + 60*x5 + 70*x6 + 80*x7;
}
double max8(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e, int64_t f, int64_t g, int64_t h,
	double x0, double x1, double x2, double x3, double x4, double x5, double x6, double x7) {
	return max6(a, b, c, d, e, f, x0, x1, x2, x3, x4, x5, x6, x7) + 7*g + 8*h;
}
int32_t neg(int32_t x) { return -x; }
`

func regtestLib(tb testing.TB) func(string) uintptr {
	tb.Helper()
	h, err := native.Dlopen(cbuild.SharedObject(tb, "orcrtregtest", regtestSource), native.RTLD_NOW|native.RTLD_LOCAL)
	require.NoError(tb, err)
	return func(name string) uintptr {
		tb.Helper()
		a, err := native.Dlsym(h, name)
		require.NoError(tb, err)
		require.NotZero(tb, a)
		return a
	}
}

// ints and floats build Regs.
func ints(v ...uint64) (r native.Regs) {
	copy(r.Int[:], v)
	return r
}

func f64s(r native.Regs, v ...float64) native.Regs {
	for i, x := range v {
		r.Float[i] = math.Float64bits(x)
	}
	return r
}

func f32s(r native.Regs, v ...float32) native.Regs {
	for i, x := range v {
		r.Float[i] = uint64(math.Float32bits(x))
	}
	return r
}

func sx(v int64) uint64 { return uint64(v) } // sign-extended, as Go widens signed values

func TestRegCallIntegers(t *testing.T) {
	fn := regtestLib(t)
	call := func(name string, r native.Regs) uint64 { return native.CallRegs(fn(name), &r, false) }
	// Results narrower than 64 bits are only defined in their low bits.
	assert.Equal(t, int8(-5), int8(call("s8_neg", ints(5))))
	assert.Equal(t, int8(127), int8(call("s8_neg", ints(sx(-127)))))
	assert.Equal(t, uint8(0), uint8(call("u8_inc", ints(255))))
	assert.Equal(t, int16(-300), int16(call("s16_neg", ints(300))))
	assert.Equal(t, uint16(0), uint16(call("u16_inc", ints(65535))))
	assert.Equal(t, int32(math.MinInt32+1), int32(call("s32_neg", ints(math.MaxInt32))))
	assert.Equal(t, uint32(0), uint32(call("u32_inc", ints(math.MaxUint32))))
	assert.Equal(t, int64(math.MinInt64+1), int64(call("s64_neg", ints(math.MaxInt64))))
	assert.Equal(t, uint64(0), call("u64_inc", ints(math.MaxUint64)))
	assert.Equal(t, int64(-3*1000000+200*10000-4*100+60000-7+4000000000),
		int64(call("widen", ints(sx(-3), 200, sx(-4), 60000, sx(-7), 4000000000))), "narrow arguments, extended")

	p := cmem.Malloc(16)
	defer cmem.Free(p)
	assert.Equal(t, uint64(p+5), call("ptr_add", ints(uint64(p), 5)), "pointer and size_t")
	call("store", ints(uint64(p), sx(-42))) // void: the result register is ignored
	b := cmem.Bytes(p, 8)
	assert.Equal(t, int64(-42), int64(uint64(b[0])|uint64(b[1])<<8|uint64(b[2])<<16|uint64(b[3])<<24|
		uint64(b[4])<<32|uint64(b[5])<<40|uint64(b[6])<<48|uint64(b[7])<<56))
}

func TestRegCallFloats(t *testing.T) {
	fn := regtestLib(t)
	fcall := func(name string, r native.Regs) uint64 { return native.CallRegs(fn(name), &r, true) }
	assert.Equal(t, float32(7.5), math.Float32frombits(uint32(fcall("f32_mul", f32s(native.Regs{}, 2.5, 3)))),
		"float arguments and result in the low 32 bits")
	assert.Equal(t, 0.1, math.Float64frombits(fcall("f64_div", f64s(native.Regs{}, 1, 10))))
	assert.Equal(t, float64(float32(0.1)), math.Float64frombits(fcall("f32_widen", f32s(native.Regs{}, 0.1))))

	r := ints(sx(-3), 7, 250) // a, c, e
	r = f32s(r, 0.5)          // b
	r.Float[1] = math.Float64bits(0.25)
	r.Float[2] = uint64(math.Float32bits(2))
	assert.Equal(t, -3+0.5+7+0.25+250+2, math.Float64frombits(fcall("mix", r)), "integer and floating arguments interleaved")
}

// TestRegCallAllRegisters fills every argument register the platform has.
func TestRegCallAllRegisters(t *testing.T) {
	fn := regtestLib(t)
	require.Contains(t, []int{6, 8}, native.IntRegs)
	var r native.Regs
	want := 0.0
	for i := range native.IntRegs {
		r.Int[i] = sx(int64(-i - 1))
		want += float64((i + 1) * (-i - 1))
	}
	for i := range 8 {
		r.Float[i] = math.Float64bits(float64(i) + 0.5)
		want += float64(10*(i+1)) * (float64(i) + 0.5)
	}
	name := "max6"
	if native.IntRegs == 8 {
		name = "max8"
	}
	assert.Equal(t, want, math.Float64frombits(native.CallRegs(fn(name), &r, true)), "%d integer + 8 floating", native.IntRegs)
}

func TestRegCall4(t *testing.T) {
	fn := regtestLib(t)
	r := native.Regs4{Int: [4]uint64{sx(-3), 7, 250}}
	r.Float[0] = uint64(math.Float32bits(0.5))
	r.Float[1] = math.Float64bits(0.25)
	r.Float[2] = uint64(math.Float32bits(2))
	assert.Equal(t, -3+0.5+7+0.25+250+2, math.Float64frombits(native.CallRegs4(fn("mix"), &r, true)))
	assert.Equal(t, int32(-9), int32(native.CallRegs4(fn("neg"), &native.Regs4{Int: [4]uint64{9}}, false)))
}

func TestRegCallNilPanics(t *testing.T) {
	assert.PanicsWithValue(t, native.ErrNilFunction, func() { native.CallRegs(0, &native.Regs{}, false) })
	assert.PanicsWithValue(t, native.ErrNilFunction, func() { native.CallRegs4(0, &native.Regs4{}, true) })
}

func TestRegCallAllocationFree(t *testing.T) {
	fn := regtestLib(t)
	neg, f32 := fn("neg"), fn("f32_mul")
	assert.Zero(t, testing.AllocsPerRun(1000, func() {
		r := ints(3)
		native.CallRegs(neg, &r, false)
	}), "CallRegs")
	assert.Zero(t, testing.AllocsPerRun(1000, func() {
		r := native.Regs4{Int: [4]uint64{3}}
		native.CallRegs4(neg, &r, false)
		native.CallRegs4(f32, &r, true)
	}), "CallRegs4")
}

// BenchmarkRegCall measures the register trampolines beside an empty cgo
// call and CallIntInt in the same run.
func BenchmarkRegCall(b *testing.B) {
	neg := regtestLib(b)("neg")
	b.Run("call=floor-empty-cgo", func(b *testing.B) {
		for b.Loop() {
			cmem.CallEmpty()
		}
	})
	b.Run("call=int-int", func(b *testing.B) {
		for b.Loop() {
			_, _ = native.CallIntInt(neg, 3)
		}
	})
	b.Run("call=regs4", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r := native.Regs4{Int: [4]uint64{3}}
			native.CallRegs4(neg, &r, false)
		}
	})
	b.Run("call=regs", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r := native.Regs{Int: [8]uint64{3}}
			native.CallRegs(neg, &r, false)
		}
	})
}
