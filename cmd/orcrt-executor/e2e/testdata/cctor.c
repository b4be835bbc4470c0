/* C constructor/destructor attributes: the constructor is run by the ORC
 * runtime (nothing runs it without it). No _Thread_local here: with the
 * stock executor, a thread-local used by JIT'd main makes the ORC
 * runtime's pthread-key destructor run when the stock's per-call worker
 * thread exits, which races with the controller's release of that code;
 * under load the stock executor then dies by SIGSEGV at random, so its
 * exit status is not comparable (thread_local is covered by cxx-orc-runtime,
 * where the stock dies deterministically at exit for another reason). */
#include <stdio.h>
static int v;
__attribute__((constructor)) static void init(void) { v = 21; printf("C constructor ran\n"); }
__attribute__((destructor)) static void fini(void) { printf("C destructor ran\n"); }
int main(void) { printf("v=%d\n", v); fflush(stdout); return v + 6; }
