#include <stdio.h>
#include <setjmp.h>
static jmp_buf env;
__attribute__((noinline)) static void deep(int n) { if (n == 0) longjmp(env, 17); deep(n - 1); }
int main(void) {
  int r = setjmp(env);
  if (r == 0) { deep(100); puts("not reached"); return 1; }
  printf("longjmp returned %d\n", r);
  return r;
}
