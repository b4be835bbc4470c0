/* Built as a shared library and loaded with -preload (the dylib manager's dlopen path). */
int foo_value = 40;
int foo_add(int x) { return x + foo_value; }
