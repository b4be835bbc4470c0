#ifndef ORCRT_JITSYMS_H
#define ORCRT_JITSYMS_H

#include <stddef.h>
#include <stdint.h>

// One JIT'd function: [start, end) and its name (never freed).
typedef struct {
	uintptr_t start, end;
	const char *name;
} orcrt_jitsym;

// A published table, sorted by start, ranges disjoint.
typedef struct {
	size_t n;
	orcrt_jitsym syms[];
} orcrt_jitsyms_table;

// orcrt_jitsyms_publish makes t the current table (NULL: none), waits
// until no reader holds the previous one and frees it.
void orcrt_jitsyms_publish(orcrt_jitsyms_table *t);

// orcrt_jitsyms_find returns the name of the JIT'd function holding pc
// and sets *start, or returns NULL. Async-signal-safe; names live for
// ever, so the pointer stays valid.
const char *orcrt_jitsyms_find(uintptr_t pc, uintptr_t *start);

#endif
