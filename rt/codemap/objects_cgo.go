//go:build cgo

package codemap

/*
#define _GNU_SOURCE
#include <link.h>
#include <stddef.h>
#include <stdint.h>

typedef struct { uintptr_t *buf; size_t cap; size_t n; } orcrt_cm_acc;

static int orcrt_cm_phdr(struct dl_phdr_info *info, size_t size, void *data) {
	orcrt_cm_acc *a = data;
	(void)size;
	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		if (p->p_type != PT_LOAD || !(p->p_flags & PF_X) || p->p_memsz == 0) {
			continue;
		}
		if (a->n < a->cap) {
			uintptr_t lo = (uintptr_t)info->dlpi_addr + (uintptr_t)p->p_vaddr;
			a->buf[2 * a->n] = lo;
			a->buf[2 * a->n + 1] = lo + (uintptr_t)p->p_memsz;
		}
		a->n++;
	}
	return 0;
}

// orcrt_cm_text stores up to cap [lo, hi) pairs of executable PT_LOAD
// segments of every loaded object in buf and returns how many exist.
static size_t orcrt_cm_text(uintptr_t *buf, size_t cap) {
	orcrt_cm_acc a = { buf, cap, 0 };
	dl_iterate_phdr(orcrt_cm_phdr, &a);
	return a.n;
}
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
