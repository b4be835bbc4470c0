#define _GNU_SOURCE
#include <link.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include "jitsyms.h"

static _Atomic(orcrt_jitsyms_table *) current;
// Readers in flight: a publisher frees the old table only once it sees
// none, after the new one is visible.
static atomic_int readers;

const char *orcrt_jitsyms_find(uintptr_t pc, uintptr_t *start, const char **module) {
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
			if (module != NULL)
				*module = t->syms[lo - 1].module;
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

void orcrt_jitsyms_context(void *uctx, uintptr_t *pc, uintptr_t *sp, uintptr_t *lr) {
	*lr = 0;
#if defined(__linux__) && defined(__x86_64__)
	*pc = (uintptr_t)((ucontext_t *)uctx)->uc_mcontext.gregs[REG_RIP];
	*sp = (uintptr_t)((ucontext_t *)uctx)->uc_mcontext.gregs[REG_RSP];
#elif defined(__linux__) && defined(__aarch64__)
	*pc = (uintptr_t)((ucontext_t *)uctx)->uc_mcontext.pc;
	*sp = (uintptr_t)((ucontext_t *)uctx)->uc_mcontext.sp;
	// A leaf function's caller is only in x30 until the callee saves it.
	*lr = (uintptr_t)((ucontext_t *)uctx)->uc_mcontext.regs[30];
#else
	(void)uctx;
	*pc = *sp = 0;
#endif
}

// peek copies len bytes at addr without faulting: 0 if they are not all
// readable (a stack's end, a bad pointer).
static int peek(uintptr_t addr, void *dst, size_t len) {
#ifdef __linux__
	struct iovec local = {dst, len}, remote = {(void *)addr, len};
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)len;
#else
	(void)addr, (void)dst, (void)len;
	return 0;
#endif
}

// after_call reports whether ret follows a call instruction, so that a
// stale code address on the stack is not taken for a return address.
static int after_call(uintptr_t ret) {
#if defined(__x86_64__)
	unsigned char c[7];
	if (ret < sizeof c || !peek(ret - sizeof c, c, sizeof c))
		return 0;
	// call rel32 (e8), or call r/m (ff /2) of 6, 3 or 2 bytes.
	return c[2] == 0xe8 || (c[1] == 0xff && (c[2] & 0x38) == 0x10) ||
	       (c[4] == 0xff && (c[5] & 0x38) == 0x10) || (c[5] == 0xff && (c[6] & 0x38) == 0x10);
#elif defined(__aarch64__)
	uint32_t insn;
	if (ret < 4 || !peek(ret - 4, &insn, sizeof insn))
		return 0;
	return (insn & 0xfc000000u) == 0x94000000u || (insn & 0xfffffc1fu) == 0xd63f0000u; // BL, BLR
#else
	(void)ret;
	return 0;
#endif
}

// is_return reports whether w is a return address into a named JIT'd
// function.
static int is_return(uintptr_t w) {
	uintptr_t start;
	return w != 0 && orcrt_jitsyms_find(w - 1, &start, NULL) != NULL && after_call(w);
}

// The executable's own code (Go's and cgo's): a return address into it
// above JIT'd frames is where the JIT'd code was entered from Go, so the
// scan for JIT'd callers ends there. Set once, before main.
static uintptr_t exe_text_lo, exe_text_hi;

static int find_exe_text(struct dl_phdr_info *info, size_t size, void *data) {
	(void)size, (void)data;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) != 0) {
			exe_text_lo = info->dlpi_addr + ph->p_vaddr;
			exe_text_hi = exe_text_lo + ph->p_memsz;
			break;
		}
	}
	return 1; // the first object is the executable
}

__attribute__((constructor)) static void init_exe_text(void) {
	dl_iterate_phdr(find_exe_text, NULL);
}

static int is_exe_return(uintptr_t w) {
	return w >= exe_text_lo && w < exe_text_hi && after_call(w);
}

size_t orcrt_jitsyms_callers(uintptr_t sp, uintptr_t lr, int from_jit, size_t max_bytes, uintptr_t *pcs, size_t max) {
	enum { chunk = 64 };
	uintptr_t words[chunk];
	size_t found = 0;
	if (max > 0 && is_return(lr))
		pcs[found++] = lr - 1;
	for (uintptr_t off = 0; sp != 0 && off < max_bytes && found < max; off += sizeof words) {
		if (!peek(sp + off, words, sizeof words))
			break;
		for (size_t i = 0; i < chunk && found < max; i++) {
			// Past the return into Go that entered the JIT'd frames lie
			// Go's frames: stale code addresses (a goroutine stack's, when
			// JIT'd code runs on it), not callers.
			if ((from_jit || found > 0) && is_exe_return(words[i]))
				return found;
			// lr saved by the callee is the same caller again.
			if (is_return(words[i]) && !(found == 1 && lr != 0 && words[i] == lr))
				pcs[found++] = words[i] - 1;
		}
	}
	return found;
}

static size_t put(char *b, size_t n, size_t cap, const char *s) {
	while (*s != 0 && n < cap) {
		b[n++] = *s++;
	}
	return n;
}

static size_t put_hex(char *b, size_t n, size_t cap, uintptr_t v) {
	char tmp[2 + 2 * sizeof v];
	size_t k = 0;
	do {
		tmp[k++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v != 0);
	n = put(b, n, cap, "0x");
	while (k > 0 && n < cap) {
		b[n++] = tmp[--k];
	}
	return n;
}

static const char *signame(int sig) {
	switch (sig) {
	case SIGSEGV: return "SIGSEGV (segmentation fault)";
	case SIGBUS: return "SIGBUS (bus error)";
	case SIGFPE: return "SIGFPE (arithmetic exception)";
	case SIGILL: return "SIGILL (illegal instruction)";
	case SIGTRAP: return "SIGTRAP (trace/breakpoint trap)";
	case SIGABRT: return "SIGABRT (abort)";
	default: return "fatal signal";
	}
}

// put_sym appends sep and "name+0xoff", then " (module m)" when the
// module is known, if pc is in a named JIT'd function, and reports
// whether it was.
static int put_sym(char *b, size_t *n, size_t cap, const char *sep, uintptr_t pc) {
	uintptr_t start = 0;
	const char *module = NULL;
	const char *name = orcrt_jitsyms_find(pc, &start, &module);
	if (name == NULL)
		return 0;
	*n = put(b, *n, cap, sep);
	*n = put(b, *n, cap, name);
	*n = put(b, *n, cap, "+");
	*n = put_hex(b, *n, cap, pc - start);
	if (module != NULL) {
		*n = put(b, *n, cap, " (module ");
		*n = put(b, *n, cap, module);
		*n = put(b, *n, cap, ")");
	}
	return 1;
}

size_t orcrt_jitsyms_describe(char *b, size_t cap, const char *prefix, int sig, const siginfo_t *info, void *uctx, int *jit) {
	size_t n = 0, max = cap - 1; // room for the newline
	int named = 0;
	n = put(b, n, max, prefix);
	n = put(b, n, max, signame(sig));
	n = put(b, n, max, " in native code");
	// A signal sent or raised (SI_USER, SI_TKILL, ...) has no faulting
	// address: si_addr would be the sender's pid and uid.
	if (info->si_code > 0) {
		n = put(b, n, max, ", address ");
		n = put_hex(b, n, max, (uintptr_t)info->si_addr);
	}
	uintptr_t pc = 0, sp = 0, lr = 0;
	orcrt_jitsyms_context(uctx, &pc, &sp, &lr);
	if (pc != 0) {
		n = put(b, n, max, ", pc ");
		n = put_hex(b, n, max, pc);
		named = put_sym(b, &n, max, " in ", pc);
		// abort() runs in libc: the JIT'd code is among its callers.
		if (named || sig == SIGABRT) {
			uintptr_t callers[16];
			size_t k = orcrt_jitsyms_callers(sp, lr, named, 64 * 1024, callers, 16);
			for (size_t i = 0; i < k; i++)
				named |= put_sym(b, &n, max, i == 0 ? ", called from " : ", ", callers[i]);
		}
	}
	b[n++] = '\n';
	if (jit != NULL)
		*jit = named;
	return n;
}

// The runtime's structs (runtime.SetCgoTraceback, version 0).
struct traceback_arg {
	uintptr_t context, sig_context, *buf, max;
};
struct symbolizer_arg {
	uintptr_t pc;
	const char *file;
	uintptr_t lineno;
	const char *func;
	uintptr_t entry, more, data;
};

// A profiling signal in JIT'd code: the interrupted pc, then the JIT'd
// callers in the first 4 KiB of stack (a profile's sample must be cheap).
// Elsewhere, or outside a signal, nothing: Go shows its own frames.
void orcrt_jitsyms_traceback(void *p) {
	struct traceback_arg *a = p;
	size_t n = 0;
	uintptr_t pc = 0, sp = 0, lr = 0, start;
	if (a->sig_context != 0)
		orcrt_jitsyms_context((void *)a->sig_context, &pc, &sp, &lr);
	if (pc != 0 && a->max > 1 && orcrt_jitsyms_find(pc, &start, NULL) != NULL) {
		a->buf[n++] = pc;
		n += orcrt_jitsyms_callers(sp, lr, 1, 4096, a->buf + n, a->max - n - 1);
	}
	if (n < a->max)
		a->buf[n] = 0;
}

void orcrt_jitsyms_symbolize(void *p) {
	struct symbolizer_arg *a = p;
	uintptr_t start = 0;
	a->file = NULL;
	a->lineno = 0;
	a->more = 0;
	a->func = a->pc != 0 ? orcrt_jitsyms_find(a->pc, &start, NULL) : NULL;
	a->entry = a->func != NULL ? start : 0;
}
