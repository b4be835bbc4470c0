/* The JIT'd plugin: defines filter and does not export it; main waits in
   host_wait until the host, which looks filter up through the controller,
   is done with it. */
#include <stdint.h>

int32_t host_wait(void);

int64_t filter(int64_t x) { return 3 * x + 1; }

int main(void) { return host_wait(); }
