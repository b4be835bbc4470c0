// orcrt_export: the C entry JIT'd code calls to publish a function to the
// Go host by name (package executor's Lookup).
#include <stdint.h>
#include "_cgo_export.h"

int orcrt_export(const char *name, void *fn) {
	return orcrtGoExport((char *)name, (uintptr_t)fn);
}

uintptr_t orcrt_export_addr(void) { return (uintptr_t)&orcrt_export; }
