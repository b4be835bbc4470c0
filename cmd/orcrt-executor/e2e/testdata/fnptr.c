#include <stdio.h>
#include <stdlib.h>
static int add(int a, int b) { return a + b; }
static int mul(int a, int b) { return a * b; }
typedef int (*binop)(int, int);
static binop ops[] = {add, mul};
static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
int main(void) {
  int v[] = {5, 3, 9, 1, 7};
  qsort(v, 5, sizeof v[0], cmp);  /* libc calls back into JIT'd code */
  printf("sorted=%d%d%d%d%d add=%d mul=%d\n", v[0], v[1], v[2], v[3], v[4], ops[0](2, 3), ops[1](4, 5));
  return ops[1](3, 4);
}
