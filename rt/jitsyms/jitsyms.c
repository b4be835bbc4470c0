#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "jitsyms.h"

static _Atomic(orcrt_jitsyms_table *) current;
// Readers in flight: a publisher frees the old table only once it sees
// none, after the new one is visible.
static atomic_int readers;

const char *orcrt_jitsyms_find(uintptr_t pc, uintptr_t *start) {
	const char *name = NULL;
	atomic_fetch_add(&readers, 1);
	orcrt_jitsyms_table *t = atomic_load(&current);
	if (t != NULL && t->n > 0) {
		size_t lo = 0, hi = t->n; // first entry with start > pc
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (t->syms[mid].start <= pc)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0 && pc < t->syms[lo - 1].end) {
			name = t->syms[lo - 1].name;
			*start = t->syms[lo - 1].start;
		}
	}
	atomic_fetch_sub(&readers, 1);
	return name;
}

void orcrt_jitsyms_publish(orcrt_jitsyms_table *t) {
	orcrt_jitsyms_table *old = atomic_exchange(&current, t);
	while (atomic_load(&readers) != 0)
		sched_yield();
	free(old);
}
