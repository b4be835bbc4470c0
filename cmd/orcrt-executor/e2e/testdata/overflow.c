/* Unbounded recursion overflows the JIT'd main thread's stack: SIGSEGV, handled on the signal stack. */
#include <stdio.h>
__attribute__((noinline)) static int down(volatile char *p, int n) { volatile char buf[4096]; buf[0] = (char)n; return down(buf, n + 1) + buf[0] + (p ? p[0] : 0); }
int main(void) { fprintf(stderr, "about to overflow\n"); return down(0, 0); }
