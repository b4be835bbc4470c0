//go:build cgo

package codemap

/*
#include "objects.h"
*/
import "C"

import "unsafe"

// textCap is the first guess at the number of executable segments; the
// call is repeated with the exact count when more objects are loaded.
var textCap = 64

// loadedObjectText appends the executable PT_LOAD segments of every
// object the dynamic loader knows (dl_iterate_phdr).
func loadedObjectText(dst []span) []span {
	for {
		buf := make([]uintptr, 2*textCap)
		n := int(C.orcrt_cm_text((*C.uintptr_t)(unsafe.Pointer(&buf[0])), C.size_t(textCap)))
		if n > textCap {
			textCap = n + 16 // callers hold state.mu
			continue
		}
		for i := range n {
			dst = append(dst, span{buf[2*i], buf[2*i+1]})
		}
		return dst
	}
}
