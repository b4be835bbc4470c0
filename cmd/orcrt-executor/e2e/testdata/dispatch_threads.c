/* With -orc-runtime and -lazy: threads created by the JIT'd program call
 * lazily linked functions concurrently, so several threads JIT-dispatch to
 * the controller through __orc_rt_jit_dispatch at once. */
#include <pthread.h>
#include <stdio.h>
int lazy_fn(int);
static int out[6];
static void *worker(void *arg) { int i = (int)(long)arg; out[i] = lazy_fn(i); return 0; }
int main(void) {
  pthread_t t[6];
  for (long i = 0; i < 6; i++) pthread_create(&t[i], 0, worker, (void *)i);
  int s = 0;
  for (int i = 0; i < 6; i++) { pthread_join(t[i], 0); s += out[i]; }
  printf("sum=%d\n", s);
  fflush(stdout);
  return s;
}
