#ifndef ORCRT_EHFRAME_H
#define ORCRT_EHFRAME_H

#include <stddef.h>
#include <stdint.h>

// orcrt_ehframe_init loads libgcc_s.so.1 globally and looks up
// __register_frame/__deregister_frame in it. 0 on success; otherwise the
// error text is in err.
int orcrt_ehframe_init(char *err, size_t errcap);
void orcrt_ehframe_register(uintptr_t start);
void orcrt_ehframe_deregister(uintptr_t start);
// orcrt_ehframe_find_fde is libgcc_s's _Unwind_Find_FDE(pc) (0 if none):
// what the unwinder will find for pc.
uintptr_t orcrt_ehframe_find_fde(uintptr_t pc);
// Addresses of the functions in use (for tests and diagnostics).
uintptr_t orcrt_ehframe_register_addr(void);

#endif
