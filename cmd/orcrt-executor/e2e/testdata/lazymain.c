#include <stdio.h>
int lazy_fn(int);
int main(void) { int a = lazy_fn(20); printf("lazy_fn(20)=%d\n", a); fflush(stdout); return a + lazy_fn(1); }
