/* orcrt-executor serve's drain test: a session that stays live for
 * argv[0] seconds (default 60), then returns 0. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv) {
  int s = argc > 0 ? atoi(argv[0]) : 60;
  printf("sleeping %d\n", s);
  fflush(stdout);
  sleep(s);
  return 0;
}
