#include <stdio.h>

extern void host_wait(void);

int main(void) {
  printf("plugin: calling host_wait\n");
  fflush(stdout);
  host_wait(); /* never returns */
  printf("plugin: host_wait returned\n");
  return 0;
}
