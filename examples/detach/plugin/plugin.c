/* The JIT'd plugin: registers an entry point and waits for the host. */
#include <stdint.h>
#include <stdio.h>

void host_register(uintptr_t fn);
int32_t host_park(void);

static int counter;
static int bump(int x) { return counter += x; }

int main(void) {
  host_register((uintptr_t)bump);
  printf("plugin: registered\n");
  fflush(stdout);
  return host_park();
}
