/* The JIT'd plugin of host718: calls a host function and hands the host
   an entry point. */
#include <stdint.h>
#include <stdio.h>

int32_t host_add(int32_t, int32_t);
int64_t host_run(uintptr_t fn, int32_t calls);

static int twice(int x) { return 2 * x; }

int main(void) {
  printf("plugin: add=%d sum=%lld\n", host_add(2, 3),
         (long long)host_run((uintptr_t)twice, 1000));
  return 0;
}
