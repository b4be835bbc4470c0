#include <stdio.h>
extern int b_value(void);
extern int shared_counter;
int weak_fn(void) __attribute__((weak));
int weak_fn(void) { return 1; }           /* overridden by multi_b.c's strong definition */
extern int missing_weak(void) __attribute__((weak));
int a_value(void) { return 10 + shared_counter; }
int main(void) {
  shared_counter += 5;
  printf("a=%d b=%d weak=%d missing=%s\n", a_value(), b_value(), weak_fn(), missing_weak ? "present" : "(null)");
  return a_value() + b_value() + weak_fn();
}
