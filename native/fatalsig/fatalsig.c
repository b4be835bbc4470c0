#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fatalsig.h"
#include "jitsyms.h"

static int orcrt_fatalsig_ready;
static volatile sig_atomic_t orcrt_fatalsig_quiet;

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

static void orcrt_fatalsig_handler(int sig, siginfo_t *info, void *uctx) {
	if (orcrt_fatalsig_quiet) {
		orcrt_fatalsig_die(sig);
		return;
	}
	char b[1024];
	// JIT'd functions are named when the executor knows them (perf support).
	size_t n = orcrt_jitsyms_describe(b, sizeof b, "orcrt-executor: ", sig, info, uctx, NULL);
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
