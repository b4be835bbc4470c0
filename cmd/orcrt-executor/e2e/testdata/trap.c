/* __builtin_trap (ud2 on x86-64): the executor must die by SIGILL, which the Go runtime never forwards. */
#include <stdio.h>
int main(void) { fprintf(stderr, "about to trap\n"); __builtin_trap(); }
