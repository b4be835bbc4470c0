#include <stdio.h>
#include <stdlib.h>
int main(void) {
  const char *v = getenv("ORCRT_E2E_VAR");
  printf("ORCRT_E2E_VAR=%s\n", v ? v : "(unset)");
  return v ? 11 : 12;
}
