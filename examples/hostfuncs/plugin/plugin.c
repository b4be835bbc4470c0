/* The JIT'd plugin: calls the Go host's functions by name. */
#include <stdint.h>
#include <stdio.h>

int32_t host_add(int32_t a, int32_t b);
void host_log(char *msg);

int main(void) {
  int32_t sum = 0;
  for (int32_t i = 0; i < 1000; i++) sum = host_add(sum, i);
  host_log("done adding");
  printf("plugin: sum=%d\n", sum);
  return sum % 256;
}
