/* exit() inside JIT'd main: the executor process exits with the program's status, flushing stdio, before answering. */
#include <stdio.h>
#include <stdlib.h>
int main(void) { printf("buffered before exit\n"); exit(9); }
