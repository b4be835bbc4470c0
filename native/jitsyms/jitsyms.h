#ifndef ORCRT_JITSYMS_H
#define ORCRT_JITSYMS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

// One JIT'd function: [start, end), its name and its module's (NULL: not
// known), never freed.
typedef struct {
	uintptr_t start, end;
	const char *name, *module;
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
// and sets *start and, if module is not NULL, *module (NULL when not
// known), or returns NULL. Async-signal-safe; names live for ever, so the
// pointers stay valid.
const char *orcrt_jitsyms_find(uintptr_t pc, uintptr_t *start, const char **module);

// orcrt_jitsyms_context reads the program counter, stack pointer and
// link register (arm64; 0 on x86-64, whose return addresses are all on
// the stack) of a signal context (a ucontext_t *); 0 where not known.
void orcrt_jitsyms_context(void *uctx, uintptr_t *pc, uintptr_t *sp, uintptr_t *lr);

// orcrt_jitsyms_callers finds the return addresses into named JIT'd
// functions that follow a call instruction — lr first, then up to
// max_bytes of stack above sp — innermost first, and stores at most max of
// them, each minus 1 (inside its call instruction). The scan ends at a
// return address into the executable once a JIT'd frame has been seen
// (from_jit: the interrupted pc is one). Async-signal-safe; a scan, not
// an unwind.
size_t orcrt_jitsyms_callers(uintptr_t sp, uintptr_t lr, int from_jit, size_t max_bytes, uintptr_t *pcs, size_t max);

// orcrt_jitsyms_describe writes the one-line report of signal sig to b
// (at most cap bytes, cap > 0, the last a newline) and returns its length:
// prefix, the signal, the faulting address (not for a signal sent or
// raised), ", pc 0x..." and, when pc is in a named JIT'd function,
// " in f+0x.. (module m)" and the JIT'd callers a stack scan finds
// (", called from g+0x.., ..."); for SIGABRT, raised by libc's abort,
// the callers whatever pc is. *jit (if jit is not NULL) says whether the
// line names JIT'd code. Async-signal-safe.
size_t orcrt_jitsyms_describe(char *b, size_t cap, const char *prefix, int sig, const siginfo_t *info, void *uctx, int *jit);

// runtime.SetCgoTraceback's traceback and symbolizer (EnableProfiling).
void orcrt_jitsyms_traceback(void *arg);
void orcrt_jitsyms_symbolize(void *arg);

#endif
