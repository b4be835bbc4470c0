// The text segments of loaded objects, for package codemap (cgo builds).
#ifndef ORCRT_CODEMAP_OBJECTS_H
#define ORCRT_CODEMAP_OBJECTS_H

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

#endif
