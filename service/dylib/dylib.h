#ifndef ORCRT_DYLIB_H
#define ORCRT_DYLIB_H

#include <stddef.h>
#include <stdint.h>

// orcrt_dylib_open is dlopen; on failure it copies dlerror() into err.
uintptr_t orcrt_dylib_open(const char *path, int flags, char *err, size_t errcap);

// orcrt_dylib_resolve looks up n NUL-terminated names (names + offs[i]) in
// h and stores each address (0 if missing) in out[i].
void orcrt_dylib_resolve(uintptr_t h, const char *names, const uint64_t *offs, size_t n, uint64_t *out);

#endif
