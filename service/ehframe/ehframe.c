#include <dlfcn.h>
#include <string.h>

#include "ehframe.h"
#include "errcopy.h"

struct dwarf_eh_bases {
	void *tbase, *dbase, *func;
};

static void (*orcrt_register_frame)(const void *);
static void (*orcrt_deregister_frame)(const void *);
static const void *(*orcrt_find_fde)(void *, struct dwarf_eh_bases *);

int orcrt_ehframe_init(char *err, size_t errcap) {
	void *h = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_GLOBAL);
	if (h == NULL) {
		orcrt_copy_err(dlerror(), err, errcap);
		return -1;
	}
	void *r = dlsym(h, "__register_frame");
	void *d = dlsym(h, "__deregister_frame");
	void *f = dlsym(h, "_Unwind_Find_FDE");
	if (r == NULL || d == NULL) {
		orcrt_copy_err("could not register eh-frame: __register_frame function not found", err, errcap);
		return -1;
	}
	*(void **)&orcrt_register_frame = r;
	*(void **)&orcrt_deregister_frame = d;
	*(void **)&orcrt_find_fde = f;
	return 0;
}

void orcrt_ehframe_register(uintptr_t start) { orcrt_register_frame((const void *)start); }

void orcrt_ehframe_deregister(uintptr_t start) { orcrt_deregister_frame((const void *)start); }

uintptr_t orcrt_ehframe_find_fde(uintptr_t pc) {
	struct dwarf_eh_bases bases;
	if (orcrt_find_fde == NULL) {
		return 0;
	}
	return (uintptr_t)orcrt_find_fde((void *)pc, &bases);
}

uintptr_t orcrt_ehframe_register_addr(void) { return (uintptr_t)orcrt_register_frame; }
