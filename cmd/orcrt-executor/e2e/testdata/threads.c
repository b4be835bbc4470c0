#include <stdio.h>
#include <pthread.h>
static int results[8];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int total;
__attribute__((noinline)) static int work(int i) { int s = 0; for (int k = 0; k <= i * 100; k++) s += k % 7; return s; }
static void *thread_main(void *arg) {
  int i = (int)(long)arg;
  results[i] = work(i);
  pthread_mutex_lock(&mu); total += results[i]; pthread_mutex_unlock(&mu);
  return 0;
}
int main(void) {
  pthread_t t[8];
  for (long i = 0; i < 8; i++) pthread_create(&t[i], 0, thread_main, (void *)i);
  for (int i = 0; i < 8; i++) pthread_join(t[i], 0);
  printf("total=%d r7=%d\n", total, results[7]);
  return total % 256;
}
