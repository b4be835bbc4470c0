#include <stdio.h>
int main(int argc, char **argv) {
  printf("served: %s\n", argc > 1 ? argv[argc - 1] : "");
  return 7;
}
