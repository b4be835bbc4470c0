#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "crashers.h"

// Out of line, so that each crash is at a function of its own.
#define CRASHER __attribute__((noinline))
// A function alone in a section: the linker's __start_ and __stop_
// symbols bound it, for the tests that name it as JIT'd code.
#define NAMED(sec) __attribute__((noinline, section(#sec)))

NAMED(orcrt_crash_segv_text) void orcrt_crash_segv(void) {
	volatile int *p = (int *)16;
	*p = 1;
}

CRASHER void orcrt_crash_ill(void) {
#if defined(__aarch64__)
	__asm__ __volatile__("udf #0"); // __builtin_trap is BRK there: SIGTRAP
#else
	__builtin_trap(); // ud2
#endif
}

CRASHER void orcrt_crash_trap(void) {
#if defined(__x86_64__)
	__asm__ __volatile__("int3");
#elif defined(__aarch64__)
	__asm__ __volatile__("brk #0xf000");
#endif
}

CRASHER void orcrt_crash_fpe(void) {
#if defined(__x86_64__)
	volatile int z = 0;
	volatile int one = 1;
	volatile int r = one / z;
	(void)r;
#else
	raise(SIGFPE);
#endif
}

CRASHER void orcrt_crash_bus(void) {
	char path[] = "/tmp/orcrt-fatalsig-XXXXXX";
	int fd = mkstemp(path);
	unlink(path);
	if (ftruncate(fd, 4096) != 0)
		abort();
	volatile char *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (ftruncate(fd, 0) != 0)
		abort();
	(void)p[0];
}

static void *thread_segv(void *arg) {
	(void)arg;
	orcrt_crash_segv();
	return NULL;
}

void orcrt_crash_segv_on_own_thread(void) {
	pthread_t t;
	pthread_create(&t, NULL, thread_segv, NULL);
	pthread_join(t, NULL);
}

void orcrt_crash_pipe_write(void) {
	int p[2];
	if (pipe(p) != 0)
		abort();
	close(p[0]);
	ssize_t w = write(p[1], "x", 1);
	(void)w;
}

void orcrt_crash_register_atexit_segv(void) { atexit(orcrt_crash_segv); }

void orcrt_crash_buffered_print(void) { printf("buffered"); }

NAMED(orcrt_crash_abort_text) void orcrt_crash_abort(void) {
	fputs("about to abort\n", stderr);
	abort();
}

int orcrt_crash_segv_default(void) {
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	return sigaction(SIGSEGV, &sa, NULL);
}

static void plain_handler(int sig) {
	(void)sig;
	static const char msg[] = "plain handler\n";
	ssize_t w = write(2, msg, sizeof msg - 1);
	(void)w;
	_exit(7);
}

int orcrt_crash_segv_plain(void) {
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = plain_handler;
	sa.sa_flags = SA_ONSTACK;
	sigfillset(&sa.sa_mask);
	return sigaction(SIGSEGV, &sa, NULL);
}

extern char __start_orcrt_crash_segv_text[], __stop_orcrt_crash_segv_text[];
extern char __start_orcrt_crash_abort_text[], __stop_orcrt_crash_abort_text[];

uintptr_t orcrt_crash_range(int abort_fn, uintptr_t *end) {
	*end = (uintptr_t)(abort_fn ? __stop_orcrt_crash_abort_text : __stop_orcrt_crash_segv_text);
	return (uintptr_t)(abort_fn ? __start_orcrt_crash_abort_text : __start_orcrt_crash_segv_text);
}
