#include <stdio.h>
int lib_square(int);
int lib_cube(int);
int main(void) { printf("sq=%d cube=%d\n", lib_square(7), lib_cube(3)); return lib_square(3) + lib_cube(2); }
