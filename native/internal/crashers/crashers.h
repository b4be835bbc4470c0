// Native code that crashes in the ways JIT'd code can (package crashers).
#ifndef ORCRT_CRASHERS_H
#define ORCRT_CRASHERS_H

#include <stdint.h>

void orcrt_crash_segv(void);
void orcrt_crash_segv_on_own_thread(void);
void orcrt_crash_ill(void);
void orcrt_crash_trap(void);
void orcrt_crash_fpe(void);
void orcrt_crash_bus(void);
void orcrt_crash_abort(void);
void orcrt_crash_pipe_write(void);
void orcrt_crash_register_atexit_segv(void);
void orcrt_crash_buffered_print(void);
// orcrt_crash_segv_default sets SIGSEGV's action to the default and
// orcrt_crash_segv_plain to a handler without SA_SIGINFO that writes
// "plain handler" and exits with status 7: what a host may have set
// before the handler under test chains to it.
int orcrt_crash_segv_default(void);
int orcrt_crash_segv_plain(void);
// orcrt_crash_range returns the start of orcrt_crash_segv (abort_fn 0) or
// orcrt_crash_abort and sets *end to its end.
uintptr_t orcrt_crash_range(int abort_fn, uintptr_t *end);

#endif
