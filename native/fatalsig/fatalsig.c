#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "fatalsig.h"
#include "jitsyms.h"

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

// orcrt_put_sym appends sep and "name+0xoff" if pc is in a named JIT'd
// function (native/jitsyms), and reports whether it was.
static int orcrt_put_sym(char *b, size_t *n, size_t cap, const char *sep, uintptr_t pc) {
	uintptr_t start = 0;
	const char *name = orcrt_jitsyms_find(pc, &start);
	if (name == NULL)
		return 0;
	*n = orcrt_put(b, *n, cap, sep);
	*n = orcrt_put(b, *n, cap, name);
	*n = orcrt_put(b, *n, cap, "+");
	*n = orcrt_put_hex(b, *n, cap, pc - start);
	return 1;
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
	uintptr_t pc = 0, sp = 0, lr = 0;
	orcrt_jitsyms_context(uctx, &pc, &sp, &lr);
	if (pc != 0) {
		n = orcrt_put(b, n, sizeof b - 1, ", pc ");
		n = orcrt_put_hex(b, n, sizeof b - 1, pc);
		// Named when the executor knows the JIT'd function (perf support).
		if (orcrt_put_sym(b, &n, sizeof b - 1, " in ", pc)) {
			uintptr_t callers[16];
			size_t k = orcrt_jitsyms_callers(sp, lr, 64 * 1024, callers, 16);
			for (size_t i = 0; i < k; i++)
				orcrt_put_sym(b, &n, sizeof b - 1, i == 0 ? ", called from " : ", ", callers[i]);
		}
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
