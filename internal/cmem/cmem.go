package cmem

/*
#cgo noescape orcrt_cmem_malloc_copy
#cgo nocallback orcrt_cmem_malloc_copy
#include <stdlib.h>
#include <string.h>

static void orcrt_cmem_empty(void) {}

static void *orcrt_cmem_malloc_copy(const char *src, size_t n) {
	void *p = malloc(n > 0 ? n : 1);
	if (p != NULL && n > 0) {
		memcpy(p, src, n);
	}
	return p;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// CallEmpty calls an empty C function: the floor of a cgo call.
func CallEmpty() { C.orcrt_cmem_empty() }

// Malloc returns n bytes from libc malloc (never 0: cgo's malloc aborts on
// exhaustion). JIT'd code may free() it; otherwise release it with [Free].
func Malloc(n uintptr) uintptr {
	if n == 0 {
		n = 1
	}
	return uintptr(C.malloc(C.size_t(n)))
}

// MallocCopy returns a libc-malloc'd copy of b (at least one byte is
// allocated, so the result is never 0 on success), in one Go→C
// transition: a result buffer JIT'd code would free().
func MallocCopy(b []byte) (uintptr, error) {
	var src *C.char
	if len(b) > 0 {
		src = (*C.char)(unsafe.Pointer(&b[0]))
	}
	p := C.orcrt_cmem_malloc_copy(src, C.size_t(len(b)))
	if p == nil {
		return 0, fmt.Errorf("cmem: malloc of %d bytes failed", len(b))
	}
	return uintptr(p), nil
}

// Free calls libc free(p). p must come from libc malloc; Free(0) is a
// no-op.
func Free(p uintptr) {
	if p != 0 {
		C.free(ptr(p))
	}
}

// Bytes returns a view of n bytes of C memory at p (valid while the C
// memory is).
func Bytes(p, n uintptr) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(ptr(p)), n)
}

// ptr turns a C address into an unsafe.Pointer without tripping vet's
// unsafeptr check; the memory is never Go's.
func ptr(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }
