/* filter.c's plugin with a filter that spends its time in JIT'd code,
   for the CPU-profile test: the samples land in filter itself. */
#include <stdint.h>

int32_t host_wait(void);

int64_t filter(int64_t x) {
  for (volatile int i = 0; i < 20000; i++) {
  }
  return 3 * x + 1;
}

int main(void) { return host_wait(); }
