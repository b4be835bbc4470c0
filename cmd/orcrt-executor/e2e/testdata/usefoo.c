/* Uses a function and a data symbol of the -preload'ed library. */
#include <stdio.h>
int foo_add(int);
extern int foo_value;
int main(void) { printf("foo_add(2)=%d\n", foo_add(2)); return foo_add(2) + foo_value; }
