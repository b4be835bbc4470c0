//go:build cgo

package membench

/*
#include "cgoref.h"
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
