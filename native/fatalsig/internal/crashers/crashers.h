// Native code that crashes in the ways JIT'd code can (package crashers).
#ifndef ORCRT_CRASHERS_H
#define ORCRT_CRASHERS_H

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void segv(void) { volatile int *p = (int *)16; *p = 1; }
static void ill(void) {
#if defined(__aarch64__)
	__asm__ __volatile__("udf #0"); // __builtin_trap is BRK there: SIGTRAP
#else
	__builtin_trap(); // ud2
#endif
}
static void trap(void) {
#if defined(__x86_64__)
	__asm__ __volatile__("int3");
#elif defined(__aarch64__)
	__asm__ __volatile__("brk #0xf000");
#endif
}
static void fpe(void) {
#if defined(__x86_64__)
	volatile int z = 0;
	volatile int one = 1;
	volatile int r = one / z;
	(void)r;
#else
	raise(SIGFPE);
#endif
}
static void bus(void) {
	char path[] = "/tmp/orcrt-fatalsig-XXXXXX";
	int fd = mkstemp(path);
	unlink(path);
	if (ftruncate(fd, 4096) != 0) abort();
	volatile char *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (ftruncate(fd, 0) != 0) abort();
	(void)p[0];
}
static void *thread_segv(void *arg) { (void)arg; segv(); return NULL; }
static void segv_on_own_thread(void) {
	pthread_t t;
	pthread_create(&t, NULL, thread_segv, NULL);
	pthread_join(t, NULL);
}
static void pipe_write(void) {
	int p[2];
	if (pipe(p) != 0) abort();
	close(p[0]);
	ssize_t w = write(p[1], "x", 1);
	(void)w;
}
static void register_atexit_segv(void) { atexit(segv); }
static void buffered_print(void) { printf("buffered"); }
static void do_abort(void) { fputs("about to abort\n", stderr); abort(); }

#endif
