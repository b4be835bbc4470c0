/* With -orc-runtime and -lazy: threads JIT-dispatch to the controller
 * while the main thread stays busy in JIT'd code (spinning, not blocked
 * in a system call), so the executor must serve the dispatches while the
 * thread that entered main keeps running native code. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
int lazy_fn(int);
static int out[6];
static atomic_int done;
static void *worker(void *arg) {
  int i = (int)(long)arg;
  out[i] = lazy_fn(i);
  atomic_fetch_add(&done, 1);
  return 0;
}
int main(void) {
  pthread_t t[6];
  for (long i = 0; i < 6; i++) pthread_create(&t[i], 0, worker, (void *)i);
  while (atomic_load(&done) < 6) {
  }
  int s = 0;
  for (int i = 0; i < 6; i++) { pthread_join(t[i], 0); s += out[i]; }
  printf("sum=%d\n", s);
  fflush(stdout);
  return s;
}
