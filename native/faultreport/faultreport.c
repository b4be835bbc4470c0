#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "faultreport.h"
#include "jitsyms.h"

static const int orcrt_faultreport_sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT};

// What each signal did before (Go's handler), written before the handler
// that reads it is installed.
static struct sigaction orcrt_faultreport_saved[NSIG];
static char orcrt_faultreport_prefix[64];

// orcrt_faultreport_write writes the line if it names JIT'd code. Out of
// line, so that its buffer is off the signal stack before the saved
// handler runs on it.
__attribute__((noinline)) static void orcrt_faultreport_write(int sig, siginfo_t *info, void *uctx) {
	char b[1024];
	int jit = 0;
	size_t n = orcrt_jitsyms_describe(b, sizeof b, orcrt_faultreport_prefix, sig, info, uctx, &jit);
	if (jit) {
		ssize_t w = write(2, b, n);
		(void)w;
	}
}

// orcrt_faultreport_chain does what the saved action would have done.
// SIG_DFL and SIG_IGN are checked first: the Go runtime sets them with
// SA_SIGINFO too.
static void orcrt_faultreport_chain(int sig, siginfo_t *info, void *uctx) {
	const struct sigaction *old = &orcrt_faultreport_saved[sig];
	if (old->sa_handler == SIG_IGN && info->si_code <= 0)
		return; // sent or raised, and ignored
	if (old->sa_handler != SIG_IGN && old->sa_handler != SIG_DFL) {
		if (old->sa_flags & SA_SIGINFO)
			old->sa_sigaction(sig, info, uctx);
		else
			old->sa_handler(sig);
		return;
	}
	// The default action; also for an ignored fault, which the kernel
	// would not let the instruction retry for ever. Raised while sig is
	// blocked, it is delivered when the handler returns.
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
	raise(sig);
}

static void orcrt_faultreport_handler(int sig, siginfo_t *info, void *uctx) {
	int saved_errno = errno;
	// A fault the kernel reports (si_code > 0), or an abort() of this
	// process; a signal another process sends names nothing.
	if (sig == SIGABRT ? info->si_code <= 0 && info->si_pid == getpid() : info->si_code > 0)
		orcrt_faultreport_write(sig, info, uctx);
	errno = saved_errno;
	orcrt_faultreport_chain(sig, info, uctx);
}

int orcrt_faultreport_install(const char *prefix) {
	if (orcrt_faultreport_prefix[0] == 0)
		strncpy(orcrt_faultreport_prefix, prefix, sizeof orcrt_faultreport_prefix - 1);
	for (size_t i = 0; i < sizeof orcrt_faultreport_sigs / sizeof orcrt_faultreport_sigs[0]; i++) {
		int sig = orcrt_faultreport_sigs[i];
		struct sigaction old, sa;
		if (sigaction(sig, NULL, &old) != 0)
			return sig;
		if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction == orcrt_faultreport_handler)
			continue; // installed already: never chain to ourselves
		orcrt_faultreport_saved[sig] = old;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = orcrt_faultreport_handler;
		// SA_ONSTACK, as the Go runtime requires of non-Go handlers; the
		// saved handler runs with the mask it asked for.
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK | (old.sa_flags & SA_RESTART);
		sa.sa_mask = old.sa_mask;
		if (sigaction(sig, &sa, NULL) != 0)
			return sig;
	}
	return 0;
}
