/* The JIT'd plugin: hands the host an entry point to call. */
#include <stdint.h>
#include <stdio.h>

int64_t host_run(uintptr_t fn, int32_t goroutines, int32_t calls);

static int square(int x) { return x * x; }

int main(void) {
  int64_t sum = host_run((uintptr_t)square, 8, 10000);
  printf("plugin: sum=%lld\n", (long long)sum);
  return 0;
}
