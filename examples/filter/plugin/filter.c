/* The JIT'd plugin: defines filter, hands it to the Go host by name and
   waits until the host is done with it. */
#include <stdint.h>
#include <stdio.h>

int orcrt_export(const char *name, void *fn); /* provided by every orcrt host */
int32_t host_wait(void);

int64_t filter(int64_t x) { return x % 7 == 0 ? x : 0; }

int main(void) {
  if (orcrt_export("filter", (void *)filter) != 0)
    return 1;
  printf("plugin: exported filter\n");
  fflush(stdout);
  return host_wait();
}
