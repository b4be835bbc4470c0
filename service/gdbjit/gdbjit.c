#include <pthread.h>
#include <stdlib.h>

#include "gdbjit.h"

// Exported (default visibility, kept even if unreferenced) so debuggers
// and dlsym(dlopen(NULL)) find them.
__attribute__((visibility("default"), used))
struct jit_descriptor __jit_debug_descriptor = {1, JIT_NOACTION, NULL, NULL};

static uint64_t orcrt_register_code_calls;

// Debuggers set a breakpoint here. noinline and the asm barrier keep the
// call and the function body from being optimized away.
__attribute__((visibility("default"), used, noinline))
void __jit_debug_register_code(void) {
	__atomic_fetch_add(&orcrt_register_code_calls, 1, __ATOMIC_RELAXED);
	__asm__ __volatile__("" ::: "memory");
}

static pthread_mutex_t orcrt_gdbjit_mu = PTHREAD_MUTEX_INITIALIZER;

uintptr_t orcrt_gdbjit_register(uintptr_t addr, uint64_t size, int auto_register) {
	struct jit_code_entry *e = malloc(sizeof *e);
	if (e == NULL) {
		return 0;
	}
	e->symfile_addr = (const char *)addr;
	e->symfile_size = size;
	e->prev_entry = NULL;
	pthread_mutex_lock(&orcrt_gdbjit_mu);
	struct jit_code_entry *next = __jit_debug_descriptor.first_entry;
	e->next_entry = next;
	if (next != NULL) {
		next->prev_entry = e;
	}
	__jit_debug_descriptor.first_entry = e;
	__jit_debug_descriptor.relevant_entry = e;
	__jit_debug_descriptor.action_flag = JIT_REGISTER_FN;
	if (auto_register) {
		__jit_debug_register_code();
	}
	pthread_mutex_unlock(&orcrt_gdbjit_mu);
	return (uintptr_t)e;
}

uint64_t orcrt_gdbjit_snapshot(uint64_t *out, uint64_t cap, uint32_t *version, uint32_t *action, uint64_t *relevant) {
	uint64_t n = 0;
	pthread_mutex_lock(&orcrt_gdbjit_mu);
	*version = __jit_debug_descriptor.version;
	*action = __jit_debug_descriptor.action_flag;
	*relevant = (uint64_t)(uintptr_t)__jit_debug_descriptor.relevant_entry;
	struct jit_code_entry *prev = NULL;
	for (struct jit_code_entry *e = __jit_debug_descriptor.first_entry; e != NULL; e = e->next_entry) {
		if (n < cap) {
			out[3 * n] = (uint64_t)(uintptr_t)e;
			out[3 * n + 1] = (uint64_t)(uintptr_t)e->symfile_addr;
			// A broken back link is reported as size ~0 so tests see it.
			out[3 * n + 2] = e->prev_entry == prev ? e->symfile_size : ~(uint64_t)0;
		}
		prev = e;
		n++;
	}
	pthread_mutex_unlock(&orcrt_gdbjit_mu);
	return n;
}

uintptr_t orcrt_gdbjit_last_entry(void) {
	pthread_mutex_lock(&orcrt_gdbjit_mu);
	struct jit_code_entry *last = __jit_debug_descriptor.first_entry;
	while (last != NULL && last->next_entry != NULL) {
		last = last->next_entry;
	}
	pthread_mutex_unlock(&orcrt_gdbjit_mu);
	return (uintptr_t)last;
}

uint64_t orcrt_gdbjit_register_code_calls(void) { return __atomic_load_n(&orcrt_register_code_calls, __ATOMIC_RELAXED); }
uintptr_t orcrt_gdbjit_descriptor_addr(void) { return (uintptr_t)&__jit_debug_descriptor; }
uintptr_t orcrt_gdbjit_register_code_addr(void) { return (uintptr_t)&__jit_debug_register_code; }
