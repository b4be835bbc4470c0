// segv3: a NULL dereference three JIT'd calls deep (TestCrashReportNames).
#include <stdio.h>

__attribute__((noinline)) int f3(int *p) { return *p + 1; }
__attribute__((noinline)) int f2(int *p) { return f3(p) * 2; }
__attribute__((noinline)) int f1(int *p) { return f2(p) + 3; }

int main(void) {
  int *volatile p = 0;
  printf("%d\n", f1(p));
  return 0;
}
