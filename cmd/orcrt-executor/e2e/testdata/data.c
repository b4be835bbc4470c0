#include <stdio.h>
#include <string.h>
int counter = 42;
static int table[40000];             /* bss, ~160 KiB: many pages */
static const char *names[] = {"alpha", "beta", "gamma"};
static const double ratio = 2.5;
static char big_data[3 * 4096 + 17] = {1, 2, 3};  /* multi-page .data */
const unsigned char rodata_table[5000] = {[0] = 9, [4999] = 7};
int main(void) {
  for (int i = 0; i < 40000; i++) table[i] = i;
  long sum = 0;
  for (int i = 0; i < 40000; i++) sum += table[i];
  big_data[sizeof big_data - 1] = 5;
  int bd = big_data[0] + big_data[1] + big_data[2] + big_data[sizeof big_data - 1];
  printf("counter=%d sum=%ld names=%s,%s,%s ratio=%.1f bd=%d ro=%d,%d\n", counter, sum,
         names[0], names[1], names[2], ratio, bd, rodata_table[0], rodata_table[4999]);
  return counter + bd;
}
