/* A fault on a thread the JIT'd program created (no Go state on it). */
#include <pthread.h>
#include <stdio.h>
static void *crash(void *a) { (void)a; fprintf(stderr, "thread about to crash\n"); volatile int *p = (int *)16; *p = 1; return 0; }
int main(void) { pthread_t t; pthread_create(&t, 0, crash, 0); pthread_join(t, 0); return 0; }
