package native

/*
#include <stdint.h>
#include <string.h>

// Every register-only C signature: integer and pointer arguments in the
// first integer registers, floating ones in the first vector registers.
// A non-variadic callee ignores the registers it does not declare.
typedef uint64_t (*orcrt_int_fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
	double, double, double, double, double, double, double, double);
typedef double (*orcrt_float_fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
	double, double, double, double, double, double, double, double);

// A float argument travels as the low 32 bits of its register: build the
// double from the bit pattern.
static inline double orcrt_bits_double(uint64_t b) { double d; memcpy(&d, &b, sizeof d); return d; }

// As native.c's orcrt_isb: code another core published may be stale in
// this core's instruction stream until an ISB (package arch/arm64).
static inline void orcrt_regs_isb(void) {
#if defined(__aarch64__)
	__asm__ __volatile__("isb" ::: "memory");
#endif
}

static uint64_t orcrt_call_regs(uintptr_t fn, int float_result,
	uint64_t i0, uint64_t i1, uint64_t i2, uint64_t i3, uint64_t i4, uint64_t i5, uint64_t i6, uint64_t i7,
	uint64_t f0, uint64_t f1, uint64_t f2, uint64_t f3, uint64_t f4, uint64_t f5, uint64_t f6, uint64_t f7) {
	double d0 = orcrt_bits_double(f0), d1 = orcrt_bits_double(f1), d2 = orcrt_bits_double(f2), d3 = orcrt_bits_double(f3);
	double d4 = orcrt_bits_double(f4), d5 = orcrt_bits_double(f5), d6 = orcrt_bits_double(f6), d7 = orcrt_bits_double(f7);
	orcrt_regs_isb();
	if (!float_result)
		return ((orcrt_int_fn)fn)(i0, i1, i2, i3, i4, i5, i6, i7, d0, d1, d2, d3, d4, d5, d6, d7);
	double r = ((orcrt_float_fn)fn)(i0, i1, i2, i3, i4, i5, i6, i7, d0, d1, d2, d3, d4, d5, d6, d7);
	uint64_t b;
	memcpy(&b, &r, sizeof b);
	return b;
}

// The typed forms' case: at most 4 arguments of either kind.
typedef uint64_t (*orcrt_int_fn4)(uint64_t, uint64_t, uint64_t, uint64_t, double, double, double, double);
typedef double (*orcrt_float_fn4)(uint64_t, uint64_t, uint64_t, uint64_t, double, double, double, double);

static uint64_t orcrt_call_regs4(uintptr_t fn, int float_result,
	uint64_t i0, uint64_t i1, uint64_t i2, uint64_t i3, uint64_t f0, uint64_t f1, uint64_t f2, uint64_t f3) {
	double d0 = orcrt_bits_double(f0), d1 = orcrt_bits_double(f1), d2 = orcrt_bits_double(f2), d3 = orcrt_bits_double(f3);
	orcrt_regs_isb();
	if (!float_result)
		return ((orcrt_int_fn4)fn)(i0, i1, i2, i3, d0, d1, d2, d3);
	double r = ((orcrt_float_fn4)fn)(i0, i1, i2, i3, d0, d1, d2, d3);
	uint64_t b;
	memcpy(&b, &r, sizeof b);
	return b;
}
*/
import "C"

// Regs are the argument registers of a C call: Int the integer and
// pointer arguments in order, Float the bit patterns of the floating ones
// (a float32 in the low 32 bits). amd64 passes Int[0:6] and Float[0:8] in
// registers, arm64 Int[0:8] and Float[0:8].
type Regs struct {
	Int   [8]uint64
	Float [8]uint64
}

// IntRegs and FloatRegs are how many integer and floating arguments the
// platform passes in registers.
const (
	IntRegs   = intRegs
	FloatRegs = 8
)

// CallRegs calls fn with r's registers and returns its result register:
// the integer one, or with floatResult the bit pattern of the floating
// one. Variadic callees and arguments passed on the stack are not
// supported. fn must not be 0 (CallRegs panics with [ErrNilFunction]).
// One Go→C transition; no allocation (r is read, not passed to C).
func CallRegs(fn uintptr, r *Regs, floatResult bool) uint64 {
	if fn == 0 {
		panic(ErrNilFunction)
	}
	fr := C.int(0)
	if floatResult {
		fr = 1
	}
	i, f := &r.Int, &r.Float
	return uint64(C.orcrt_call_regs(C.uintptr_t(fn), fr,
		C.uint64_t(i[0]), C.uint64_t(i[1]), C.uint64_t(i[2]), C.uint64_t(i[3]),
		C.uint64_t(i[4]), C.uint64_t(i[5]), C.uint64_t(i[6]), C.uint64_t(i[7]),
		C.uint64_t(f[0]), C.uint64_t(f[1]), C.uint64_t(f[2]), C.uint64_t(f[3]),
		C.uint64_t(f[4]), C.uint64_t(f[5]), C.uint64_t(f[6]), C.uint64_t(f[7])))
}

// Regs4 are the registers of a call with at most 4 arguments: 8 words,
// Int then Float (package executor indexes them as one array).
type Regs4 struct {
	Int   [4]uint64
	Float [4]uint64
}

// CallRegs4 is CallRegs for at most 4 arguments of each kind: fewer
// words to pass, for the typed calls.
func CallRegs4(fn uintptr, r *Regs4, floatResult bool) uint64 {
	if fn == 0 {
		panic(ErrNilFunction)
	}
	fr := C.int(0)
	if floatResult {
		fr = 1
	}
	i, f := &r.Int, &r.Float
	return uint64(C.orcrt_call_regs4(C.uintptr_t(fn), fr,
		C.uint64_t(i[0]), C.uint64_t(i[1]), C.uint64_t(i[2]), C.uint64_t(i[3]),
		C.uint64_t(f[0]), C.uint64_t(f[1]), C.uint64_t(f[2]), C.uint64_t(f[3])))
}
