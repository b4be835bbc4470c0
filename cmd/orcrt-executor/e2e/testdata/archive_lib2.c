int lib_cube(int x) { return x * x * x; }
int lib_unused(int x) { return -x; }
