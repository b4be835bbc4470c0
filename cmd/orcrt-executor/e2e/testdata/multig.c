#include <stdio.h>
int counter = 42;
static int table[100];
static int add(int a, int b) { return a + b; }
int mul(int a, int b) { return a * b; }
int apply(int (*f)(int, int), int a, int b) { return f(a, b); }
int main(void) {
  for (int i = 0; i < 100; i++) table[i] = i;
  counter += apply(add, table[10], table[20]) + apply(mul, 1, 7);
  printf("counter=%d\n", counter);
  return counter & 0xff;
}
