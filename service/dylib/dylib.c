#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dylib.h"
#include "errcopy.h"

uintptr_t orcrt_dylib_open(const char *path, int flags, char *err, size_t errcap) {
	void *h = dlopen(path, flags);
	if (h == NULL) {
		// dlerror() is per thread and read in the same C call.
		orcrt_copy_err(dlerror(), err, errcap);
	}
	return (uintptr_t)h;
}

void orcrt_dylib_resolve(uintptr_t h, const char *names, const uint64_t *offs, size_t n, uint64_t *out) {
	for (size_t i = 0; i < n; i++) {
		out[i] = (uint64_t)(uintptr_t)dlsym((void *)h, names + offs[i]);
	}
}
