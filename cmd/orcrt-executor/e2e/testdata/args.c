/* argv as run_as_main builds it: no program name, argv[argc] == NULL, arguments verbatim. */
#include <stdio.h>
int main(int argc, char **argv) { for (int i = 0; i < argc; i++) printf("[%s]\n", argv[i]); return argc + (argv[argc] == 0 ? 100 : 0); }
