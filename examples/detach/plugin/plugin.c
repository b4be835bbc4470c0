/* The JIT'd plugin: registers an entry point and waits for the host. */
#include <stdint.h>
#include <stdio.h>

void host_register(uintptr_t fn);
int32_t host_park(void);

static int counter;
/* The host calls bump from four goroutines at once. */
static int bump(int x) { return __atomic_add_fetch(&counter, x, __ATOMIC_SEQ_CST); }

int main(void) {
  host_register((uintptr_t)bump);
  printf("plugin: registered\n");
  fflush(stdout);
  return host_park();
}
