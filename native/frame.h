// The wrapper-call fast path of package native. Included only by the cgo
// preamble of native.go (a file without //export), so that the function
// is compiled into cgo's own stub and the stub makes no second C call.
// In: fn, argument length and cap in dst[0:24]. Out: the result bytes
// from dst[0], and at dst[cap-8:cap] their number or flags.
// cap >= ORCRT_FRAME_MIN.
#ifndef ORCRT_FRAME_H
#define ORCRT_FRAME_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "native.h"

#define ORCRT_FRAME_MIN 32
#define ORCRT_R_OOB ((uint64_t)1 << 63) // an out-of-band error
#define ORCRT_R_PTR ((uint64_t)1 << 62) // a pointer to a malloc'd buffer is in dst[0:8]

static const char orcrt_no_args_fast[1];

static inline void orcrt_call_wrapper_frame(const char *args, char *dst) {
	uintptr_t fn;
	size_t n, cap;
	memcpy(&fn, dst, sizeof fn);
	memcpy(&n, dst + 8, sizeof n);
	memcpy(&cap, dst + 16, sizeof cap);
	if (args == NULL) {
		args = orcrt_no_args_fast;
	}
#if defined(__aarch64__)
	__asm__ __volatile__("isb" ::: "memory"); // see orcrt_isb in native.c
#endif
	orcrt_CWrapperFunctionBuffer r = ((orcrt_CWrapperFunctionBuffer(*)(const char *, size_t))fn)(args, n);
	size_t size = r.Size, room = cap - 8;
	char *p = r.Data.ValuePtr;
	uint64_t w;
	if (size - 1 < sizeof(char *)) { // 1..8: inline, one 8-byte store
		memcpy(dst, r.Data.Value, sizeof(char *));
		w = size;
	} else if (size == 0 && p == NULL) { // empty
		w = 0;
	} else if (size == 0) { // out-of-band error: a NUL-terminated message
		size_t m = strlen(p);
		if (m <= room) {
			memcpy(dst, p, m);
			free(p);
			w = ORCRT_R_OOB | m;
		} else {
			memcpy(dst, &p, sizeof p);
			w = ORCRT_R_OOB | ORCRT_R_PTR;
		}
	} else if (size <= room) {
		memcpy(dst, p, size);
		free(p);
		w = size;
	} else {
		memcpy(dst, &p, sizeof p);
		w = size < ORCRT_R_PTR ? (ORCRT_R_PTR | size) : (ORCRT_R_OOB | ORCRT_R_PTR | 1); // the latter: no such buffer can exist
	}
	memcpy(dst + cap - 8, &w, sizeof w);
}

#endif
