//go:build cgo && linux && (amd64 || arm64)

// Package callee holds the native fixtures of package call's tier tests:
// assembly functions whose stack use is known exactly, so that their
// facts (call.Facts) are true by construction.
package callee

/*
#include <stdint.h>
int64_t callee_inc(int64_t);
uint64_t callee_fill(uint64_t);
uint64_t callee_spin(uint64_t);
double callee_addf(double, double);
int64_t callee_add4(int64_t, int64_t, int64_t, int64_t);
double callee_mix(int64_t, double);
void callee_fault(void);
*/
import "C"

import "unsafe"

// The fixtures' addresses. Each is a leaf: it calls nothing.
var (
	Inc   = uintptr(unsafe.Pointer(C.callee_inc))   // int64_t (int64_t): x+1; stack 0
	Fill  = uintptr(unsafe.Pointer(C.callee_fill))  // uint64_t (uint64_t n): uses a frame of n bytes (FillUse)
	Spin  = uintptr(unsafe.Pointer(C.callee_spin))  // uint64_t (uint64_t n): n loop iterations; stack 0
	AddF  = uintptr(unsafe.Pointer(C.callee_addf))  // double (double, double); stack 0
	Add4  = uintptr(unsafe.Pointer(C.callee_add4))  // int64_t (4 x int64_t); stack 0
	Mix   = uintptr(unsafe.Pointer(C.callee_mix))   // double (int64_t a, double x): a*1000+x; stack 0
	Fault = uintptr(unsafe.Pointer(C.callee_fault)) // void (void): stores to address 8
)

// CgoInc calls callee_inc through cgo: the reference cost of a cgo call of
// the same function.
func CgoInc(x int64) int64 { return int64(C.callee_inc(C.int64_t(x))) }
