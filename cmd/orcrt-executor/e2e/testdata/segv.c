#include <stdio.h>
int main(void) { fprintf(stderr, "about to crash\n"); volatile int *p = (int *)16; return *p; }
