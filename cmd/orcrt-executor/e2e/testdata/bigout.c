/* 5 MB of fully buffered stdout, never flushed by the program: the executor flushes it at session end. */
#include <stdio.h>
int main(void) { unsigned long s = 0; for (int i = 0; i < 200000; i++) { printf("line %06d of big output\n", i); s += i; } return (int)(s % 251); }
