/* Integer division by zero: the executor must die by SIGFPE. */
#include <stdio.h>
int main(int argc, char **argv) { (void)argv; fprintf(stderr, "about to divide\n"); volatile int z = argc - argc; volatile int one = 1; return one / z; }
