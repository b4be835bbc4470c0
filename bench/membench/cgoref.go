//go:build cgo

package membench

/*
#include <stddef.h>
#include <stdint.h>

typedef struct {
	union { char *ValuePtr; char Value[8]; } Data;
	size_t Size;
} membench_buf;

// Same signature as rt/native's wrapper trampoline, doing nothing: the
// cost cgo itself charges for marshalling five arguments and returning a
// 16-byte struct, measured beside the empty call.
static membench_buf membench_noop5(uintptr_t fn, const char *args, size_t n, char *dst, size_t cap) {
	membench_buf r;
	r.Data.ValuePtr = NULL;
	r.Size = 8;
	return r;
}

// The signature of rt/native's fast path (two pointers, no result: the
// call's frame and outcome travel in the second), doing nothing.
static void membench_noop_frame(const char *args, char *frame) {}
*/
import "C"

import "unsafe"

// noopSameSignature calls a no-op C function with the struct-returning
// wrapper trampoline's signature (reference for BenchmarkNativeCall).
func noopSameSignature(fn uintptr, args, dst []byte) int {
	var dp *C.char
	if cap(dst) > len(dst) {
		dp = (*C.char)(unsafe.Pointer(&dst[:len(dst)+1][len(dst)]))
	}
	r := C.membench_noop5(C.uintptr_t(fn), (*C.char)(unsafe.Pointer(&args[0])), C.size_t(len(args)), dp, C.size_t(cap(dst)-len(dst)))
	return int(r.Size)
}

// noopFrame calls a no-op C function with the fast wrapper path's
// signature: the floor of a cgo call shaped like native.CallWrapper's.
func noopFrame(args, dst []byte) {
	C.membench_noop_frame((*C.char)(unsafe.Pointer(&args[0])), (*C.char)(unsafe.Pointer(&dst[:1][0])))
}
