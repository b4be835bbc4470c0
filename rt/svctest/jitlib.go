//go:build cgo

package svctest

import (
	"testing"

	"github.com/orcgo/orcrt/internal/cbuild"
	"github.com/orcgo/orcrt/native"
)

// JITLibSource is C code standing in for JIT'd code in tests: wrapper
// functions with the CWrapperFunctionBuffer ABI (including ones that call
// __llvm_orc_SimpleRemoteEPC_dispatch_fn, from the calling thread or from
// threads they create) and plain functions for the run wrappers. It is
// compiled into a shared object by [JITLib].
const JITLibSource = `
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct { union { char *ValuePtr; char Value[8]; } Data; size_t Size; } wfb;
typedef wfb (*dispatch_fn_t)(void *, const void *, const char *, size_t);

static wfb bytes_result(const char *a, size_t n) {
	wfb r;
	memset(&r, 0, sizeof r);
	if (n <= 8) {
		memcpy(r.Data.Value, a, n);
	} else {
		r.Data.ValuePtr = malloc(n);
		memcpy(r.Data.ValuePtr, a, n);
	}
	r.Size = n;
	return r;
}

static wfb oob_result(const char *msg, size_t n) {
	wfb r;
	r.Data.ValuePtr = malloc(n + 1);
	memcpy(r.Data.ValuePtr, msg, n);
	r.Data.ValuePtr[n] = 0;
	r.Size = 0;
	return r;
}

// Returns its argument bytes.
wfb orcrt_test_echo(const char *a, size_t n) { return bytes_result(a, n); }

// Returns an out-of-band error whose message is the argument bytes.
wfb orcrt_test_oob(const char *a, size_t n) { return oob_result(a, n); }

// Returns an SPSError: success if the first argument byte is 0, else the
// error "action failed". Counts its calls.
static int action_calls;
wfb orcrt_test_action(const char *a, size_t n) {
	__atomic_fetch_add(&action_calls, 1, __ATOMIC_SEQ_CST);
	if (n == 0 || a[0] == 0) {
		return bytes_result("\0", 1);
	}
	static const char err[] = "\x01\x0d\0\0\0\0\0\0\0action failed";
	return bytes_result(err, sizeof err - 1);
}
int orcrt_test_action_calls(void) { return __atomic_load_n(&action_calls, __ATOMIC_SEQ_CST); }

struct dispatch_args { dispatch_fn_t fn; void *ctx; const void *tag; };

// args = {dispatch_fn, ctx, tag, payload...}: returns
// dispatch_fn(ctx, tag, payload) as its own result.
wfb orcrt_test_dispatch(const char *a, size_t n) {
	struct dispatch_args d;
	if (n < sizeof d) {
		return oob_result("short dispatch args", 19);
	}
	memcpy(&d, a, sizeof d);
	return d.fn(d.ctx, d.tag, a + sizeof d, n - sizeof d);
}

struct thread_job { struct dispatch_args d; const char *p; size_t n; wfb r; };

static void *thread_main(void *v) {
	struct thread_job *j = v;
	j->r = j->d.fn(j->d.ctx, j->d.tag, j->p, j->n);
	return NULL;
}

static int same(const wfb *x, const wfb *y) {
	if (x->Size != y->Size) return 0;
	if (x->Size == 0) return (x->Data.ValuePtr == NULL) == (y->Data.ValuePtr == NULL);
	if (x->Size <= 8) return memcmp(x->Data.Value, y->Data.Value, x->Size) == 0;
	return memcmp(x->Data.ValuePtr, y->Data.ValuePtr, x->Size) == 0;
}

static void release(wfb *r) {
	if (r->Size > 8 || (r->Size == 0 && r->Data.ValuePtr != NULL)) free(r->Data.ValuePtr);
}

// args = {dispatch_fn, ctx, tag, u64 nthreads, payload...}: nthreads new
// pthreads each call dispatch_fn(ctx, tag, payload) concurrently; the
// result is the common result (an out-of-band error if they differ).
wfb orcrt_test_dispatch_threads(const char *a, size_t n) {
	struct dispatch_args d;
	uint64_t k;
	if (n < sizeof d + 8) {
		return oob_result("short dispatch args", 19);
	}
	memcpy(&d, a, sizeof d);
	memcpy(&k, a + sizeof d, 8);
	if (k == 0 || k > 256) {
		return oob_result("bad thread count", 16);
	}
	struct thread_job *jobs = calloc(k, sizeof *jobs);
	pthread_t *tids = calloc(k, sizeof *tids);
	for (uint64_t i = 0; i < k; i++) {
		jobs[i].d = d;
		jobs[i].p = a + sizeof d + 8;
		jobs[i].n = n - sizeof d - 8;
		pthread_create(&tids[i], NULL, thread_main, &jobs[i]);
	}
	for (uint64_t i = 0; i < k; i++) {
		pthread_join(tids[i], NULL);
	}
	int ok = 1;
	for (uint64_t i = 1; i < k; i++) {
		ok = ok && same(&jobs[0].r, &jobs[i].r);
		release(&jobs[i].r);
	}
	wfb r = jobs[0].r;
	free(jobs);
	free(tids);
	if (!ok) {
		release(&r);
		return oob_result("threads got different results", 29);
	}
	return r;
}

// int main(int argc, char **argv): sum of strlen(argv[i]) for i < argc,
// plus 1000 if argv[argc] == NULL.
int orcrt_test_main(int argc, char **argv) {
	int s = 0;
	for (int i = 0; i < argc; i++) s += (int)strlen(argv[i]);
	return argv[argc] == NULL ? s + 1000 : s;
}

int orcrt_test_neg(int x) { return -x; }
int orcrt_test_seven(void) { return 7; }
`

// JITLib builds JITLibSource into a shared object, opens it and returns a
// lookup function for its symbols (which fails t for a missing name).
func JITLib(t testing.TB) func(name string) uintptr {
	t.Helper()
	so := cbuild.SharedObject(t, "orcrtjittest", JITLibSource)
	h, err := native.Dlopen(so, native.RTLD_NOW|native.RTLD_LOCAL)
	if err != nil {
		t.Fatal(err)
	}
	return func(name string) uintptr {
		t.Helper()
		a, err := native.Dlsym(h, name)
		if err != nil || a == 0 {
			t.Fatalf("JIT test library: %s: %v", name, err)
		}
		return a
	}
}
