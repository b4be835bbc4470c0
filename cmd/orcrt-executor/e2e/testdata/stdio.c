#include <stdio.h>
#include <string.h>
#include <stdlib.h>
int main(void) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s-%d-%.3f", "fmt", 42, 3.14159);
  puts(buf);
  fputs("to stderr\n", stderr);
  fprintf(stdout, "len=%zu\n", strlen(buf));
  char *p = malloc(100);
  strcpy(p, "heap ok");
  printf("%s\n", p);
  free(p);
  fflush(stdout);
  fprintf(stderr, "stderr %d\n", 2);
  return 3;
}
