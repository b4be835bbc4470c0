#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include "fatalsig.h"

static int orcrt_fatalsig_ready;
static volatile sig_atomic_t orcrt_fatalsig_quiet;

static size_t orcrt_put(char *b, size_t n, size_t cap, const char *s) {
	while (*s != 0 && n < cap) {
		b[n++] = *s++;
	}
	return n;
}

static size_t orcrt_put_hex(char *b, size_t n, size_t cap, uintptr_t v) {
	char tmp[2 + 2 * sizeof v];
	size_t k = 0;
	do {
		tmp[k++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v != 0);
	n = orcrt_put(b, n, cap, "0x");
	while (k > 0 && n < cap) {
		b[n++] = tmp[--k];
	}
	return n;
}

static const char *orcrt_signame(int sig) {
	switch (sig) {
	case SIGSEGV: return "SIGSEGV (segmentation fault)";
	case SIGBUS: return "SIGBUS (bus error)";
	case SIGFPE: return "SIGFPE (arithmetic exception)";
	case SIGILL: return "SIGILL (illegal instruction)";
	case SIGTRAP: return "SIGTRAP (trace/breakpoint trap)";
	default: return "fatal signal";
	}
}

void orcrt_fatalsig_die(int sig) {
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	// Raised while sig is blocked (inside its handler) it stays pending
	// until the handler returns; then the default action kills us. A
	// fault would also recur when the faulting instruction is retried.
	raise(sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

// The faulting instruction's address, or 0 where it is not known.
static uintptr_t orcrt_fault_pc(void *uctx) {
#if defined(__linux__) && defined(__x86_64__)
	return (uintptr_t)((ucontext_t *)uctx)->uc_mcontext.gregs[REG_RIP];
#elif defined(__linux__) && defined(__aarch64__)
	return (uintptr_t)((ucontext_t *)uctx)->uc_mcontext.pc;
#else
	(void)uctx;
	return 0;
#endif
}

// The stack pointer at the fault, or 0 where it is not known.
static uintptr_t orcrt_fault_sp(void *uctx) {
#if defined(__linux__) && defined(__x86_64__)
	return (uintptr_t)((ucontext_t *)uctx)->uc_mcontext.gregs[REG_RSP];
#elif defined(__linux__) && defined(__aarch64__)
	return (uintptr_t)((ucontext_t *)uctx)->uc_mcontext.sp;
#else
	(void)uctx;
	return 0;
#endif
}

// rt/jitsyms's reader, when the program links it: the JIT'd function
// holding pc.
extern const char *orcrt_jitsyms_find(uintptr_t pc, uintptr_t *start) __attribute__((weak));

// orcrt_put_sym appends sep and "name+0xoff" if pc is in a named JIT'd
// function, and reports whether it was.
static int orcrt_put_sym(char *b, size_t *n, size_t cap, const char *sep, uintptr_t pc) {
	uintptr_t start = 0;
	const char *name = orcrt_jitsyms_find ? orcrt_jitsyms_find(pc, &start) : NULL;
	if (name == NULL)
		return 0;
	*n = orcrt_put(b, *n, cap, sep);
	*n = orcrt_put(b, *n, cap, name);
	*n = orcrt_put(b, *n, cap, "+");
	*n = orcrt_put_hex(b, *n, cap, pc - start);
	return 1;
}

// orcrt_peek copies len bytes at addr without faulting: 0 if they are not
// all readable.
static int orcrt_peek(uintptr_t addr, void *dst, size_t len) {
#ifdef __linux__
	struct iovec local = {dst, len}, remote = {(void *)addr, len};
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)len;
#else
	(void)addr, (void)dst, (void)len;
	return 0;
#endif
}

// orcrt_after_call reports whether ret follows a call instruction, so that
// a stale code address on the stack is not taken for a return address.
static int orcrt_after_call(uintptr_t ret) {
#if defined(__x86_64__)
	unsigned char c[7];
	if (ret < sizeof c || !orcrt_peek(ret - sizeof c, c, sizeof c))
		return 0;
	// call rel32 (e8), or call r/m (ff /2) of 2, 3 or 6 bytes.
	return c[2] == 0xe8 || (c[5] == 0xff && (c[6] & 0x38) == 0x10) ||
	       (c[4] == 0xff && (c[5] & 0x38) == 0x10) || (c[1] == 0xff && (c[2] & 0x38) == 0x10);
#elif defined(__aarch64__)
	uint32_t insn;
	if (ret < 4 || !orcrt_peek(ret - 4, &insn, sizeof insn))
		return 0;
	return (insn & 0xfc000000u) == 0x94000000u || (insn & 0xfffffc1fu) == 0xd63f0000u; // BL, BLR
#else
	(void)ret;
	return 0;
#endif
}

// orcrt_put_callers appends ", called from f+0x.., g+0x.." for the return
// addresses into named JIT'd functions found on the stack above sp,
// innermost first. A scan, not an unwind: JIT'd code need not keep frame
// pointers, and libgcc cannot unwind from a signal context it did not
// start in.
static size_t orcrt_put_callers(char *b, size_t n, size_t cap, uintptr_t sp) {
	enum { chunk = 64, max_bytes = 64 * 1024, max_frames = 16 };
	uintptr_t words[chunk];
	int found = 0;
	for (uintptr_t off = 0; sp != 0 && off < max_bytes && found < max_frames; off += sizeof words) {
		if (!orcrt_peek(sp + off, words, sizeof words))
			break;
		for (size_t i = 0; i < chunk && found < max_frames; i++) {
			uintptr_t w = words[i];
			uintptr_t start;
			if (w == 0 || !orcrt_jitsyms_find || !orcrt_jitsyms_find(w - 1, &start) || !orcrt_after_call(w))
				continue;
			orcrt_put_sym(b, &n, cap, found == 0 ? ", called from " : ", ", w - 1);
			found++;
		}
	}
	return n;
}

static void orcrt_fatalsig_handler(int sig, siginfo_t *info, void *uctx) {
	if (orcrt_fatalsig_quiet) {
		orcrt_fatalsig_die(sig);
		return;
	}
	char b[1024];
	size_t n = 0;
	n = orcrt_put(b, n, sizeof b - 1, "orcrt-executor: ");
	n = orcrt_put(b, n, sizeof b - 1, orcrt_signame(sig));
	n = orcrt_put(b, n, sizeof b - 1, " in native code, address ");
	n = orcrt_put_hex(b, n, sizeof b - 1, (uintptr_t)info->si_addr);
	uintptr_t pc = orcrt_fault_pc(uctx);
	if (pc != 0) {
		n = orcrt_put(b, n, sizeof b - 1, ", pc ");
		n = orcrt_put_hex(b, n, sizeof b - 1, pc);
		// Named when the executor knows the JIT'd function (perf support).
		if (orcrt_put_sym(b, &n, sizeof b - 1, " in ", pc))
			n = orcrt_put_callers(b, n, sizeof b - 1, orcrt_fault_sp(uctx));
	}
	b[n++] = '\n';
	ssize_t w = write(2, b, n);
	(void)w;
	orcrt_fatalsig_die(sig);
}

static int orcrt_fatalsig_install(int sig) {
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = orcrt_fatalsig_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigfillset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

void orcrt_fatalsig_exit(int code) {
	orcrt_fatalsig_quiet = 1;
	exit(code);
}

int orcrt_fatalsig_default(int sig) {
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

int orcrt_fatalsig_take(int sig) { return orcrt_fatalsig_install(sig); }

// SIGPIPE in non-Go code — JIT'd code writing to a broken stdout, from a
// cgo call or from a thread of its own — kills the process silently, as
// in a C program. The Go runtime forwards only those here: a SIGPIPE
// raised by a write in Go code (the executor's own writes to a controller
// that went away) is ignored by the runtime and the write fails with
// EPIPE, so the session ends in order ("Broken pipe").
static void orcrt_fatalsig_pipe(int sig) { orcrt_fatalsig_die(sig); }

int orcrt_fatalsig_constructor_ran(void) { return orcrt_fatalsig_ready; }

// Runs before the Go runtime initializes; the runtime records these as
// the handlers to forward non-Go faults to.
__attribute__((constructor)) static void orcrt_fatalsig_init(void) {
	int ok = orcrt_fatalsig_install(SIGSEGV) == 0;
	ok = (orcrt_fatalsig_install(SIGBUS) == 0) && ok;
	ok = (orcrt_fatalsig_install(SIGFPE) == 0) && ok;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = orcrt_fatalsig_pipe;
	sa.sa_flags = SA_ONSTACK;
	sigfillset(&sa.sa_mask);
	ok = (sigaction(SIGPIPE, &sa, NULL) == 0) && ok;
	orcrt_fatalsig_ready = ok;
}
