#include <stdio.h>
__attribute__((noinline)) static long depth(long n, volatile char *prev) {
  volatile char frame[64];
  frame[0] = (char)n;
  if (n == 0) return frame[0] + (prev ? 1 : 0);
  return depth(n - 1, frame) + 1;
}
int main(void) {
  long d = depth(50000, 0);  /* ~5 MB of stack: needs a normal 8 MiB pthread stack */
  printf("depth=%ld\n", d);
  return (int)(d % 256);
}
