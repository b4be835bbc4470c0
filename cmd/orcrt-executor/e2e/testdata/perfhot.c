// perfhot: a JIT'd function hot enough to dominate a perf profile when an
// argument is "long" (TestPerfProfile), and quick otherwise
// (TestPerfSupport). llvm-jitlink 19 and 22 differ in what argv[0] is, so
// every argument is looked at.
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) unsigned long hot_loop(long n) {
  unsigned long s = 0; // unsigned: wraps the same with every clang
  for (long i = 0; i < n; i++)
    s += (i * 2654435761u) ^ (s >> 3);
  return s;
}

int main(int argc, char **argv) {
  long n = 1000;
  for (int i = 0; i < argc; i++)
    if (strcmp(argv[i], "long") == 0)
      n = 400000000;
  printf("%lu\n", hot_loop(n));
  return 0;
}
