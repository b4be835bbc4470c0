// orcrt_copy_err copies the C string e (a dlerror() text, or NULL) into
// err[errcap], truncated and NUL-terminated. Shared by every cgo package
// of orcrt that reports dynamic-linker errors (#include "errcopy.h" with
// -I to native).
#ifndef ORCRT_ERRCOPY_H
#define ORCRT_ERRCOPY_H

#include <stddef.h>
#include <string.h>

static inline void orcrt_copy_err(const char *e, char *err, size_t errcap) {
	if (errcap == 0) {
		return;
	}
	if (e == NULL) {
		e = "unknown dynamic-linker error";
	}
	size_t m = strlen(e);
	if (m >= errcap) {
		m = errcap - 1;
	}
	memcpy(err, e, m);
	err[m] = 0;
}

#endif
