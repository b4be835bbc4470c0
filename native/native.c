#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native.h"
#include "errcopy.h"
#include "_cgo_export.h"

// Context synchronization before entering code that may have been
// published by another core (see package arch/arm64): after the
// publishing core's DSB ISH, an ISB here discards any stale instructions
// this core may have fetched. Free on x86-64 (coherent, and not needed).
static inline void orcrt_isb(void) {
#if defined(__aarch64__)
	__asm__ __volatile__("isb" ::: "memory");
#endif
}

// Non-NULL pointer passed for empty argument buffers (the stock executor
// never passes NULL either).
static const char orcrt_no_args[1];

typedef orcrt_CWrapperFunctionBuffer (*orcrt_wrapper_fn)(const char *, size_t);

orcrt_CWrapperFunctionBuffer orcrt_call_wrapper(uintptr_t fn, const char *args, size_t n, char *dst, size_t cap) {
	if (args == NULL) {
		args = orcrt_no_args;
	}
	orcrt_isb();
	orcrt_CWrapperFunctionBuffer r = ((orcrt_wrapper_fn)fn)(args, n);
	size_t size = r.Size;
	if (size - 1 < sizeof(char *)) { // 1..8: inline
		return r;
	}
	if (size == 0) {
		char *msg = r.Data.ValuePtr;
		if (msg == NULL) { // empty
			return r;
		}
		size_t m = strlen(msg);
		if (m <= cap && m < ORCRT_OOB_COPIED) {
			if (m > 0) {
				memcpy(dst, msg, m);
			}
			free(msg);
			r.Data.ValuePtr = NULL;
			r.Size = m | ORCRT_OOB_COPIED;
		}
		return r; // else: OOB, message still malloc'd
	}
	if (size <= cap && size < ORCRT_OOB_COPIED) {
		memcpy(dst, r.Data.ValuePtr, size);
		free(r.Data.ValuePtr);
		r.Data.ValuePtr = NULL;
		r.Size = size | ORCRT_COPIED;
	}
	return r; // else: large, buffer still malloc'd
}

// packed holds exactly argc NUL-terminated strings. They are copied into
// one C allocation with the argv array (argv[argc] = NULL), alive and
// writable until main returns, then freed.
int orcrt_call_main(uintptr_t fn, int argc, const char *packed, size_t packed_len, int *ok) {
	char **argv = malloc(sizeof(char *) * ((size_t)argc + 1) + packed_len);
	if (argv == NULL) {
		*ok = 0;
		return -1;
	}
	char *p = (char *)(argv + argc + 1);
	if (packed_len > 0) {
		memcpy(p, packed, packed_len);
	}
	for (int i = 0; i < argc; i++) {
		argv[i] = p;
		p += strlen(p) + 1;
	}
	argv[argc] = NULL;
	orcrt_isb();
	int r = ((int (*)(int, char **))fn)(argc, argv);
	free(argv);
	*ok = 1;
	return r;
}

int orcrt_call_int_void(uintptr_t fn) {
	orcrt_isb();
	return ((int (*)(void))fn)();
}

int orcrt_call_int_int(uintptr_t fn, int arg) {
	orcrt_isb();
	return ((int (*)(int))fn)(arg);
}

typedef uint64_t (*orcrt_ints4_fn)(uint64_t, uint64_t, uint64_t, uint64_t);

// A result of at most 32 bits comes back as runtime.cgocall's int32:
// nothing is written to the goroutine's stack after the call.
int32_t orcrt_ints4_ret32(orcrt_ints_frame *f) {
	orcrt_isb();
	return (int32_t)((orcrt_ints4_fn)f->fn)(f->a[0], f->a[1], f->a[2], f->a[3]);
}

// Runtime assembly; cgo's own wrappers call it the same way.
extern char *_cgo_topofstack(void);

// A wider result is stored in the frame, which lies on the goroutine's
// stack: the callee may call back into Go and the stack may move, so the
// frame is found again from the stack's top (as in cgo's wrappers).
void orcrt_ints4_ret64(orcrt_ints_frame *f) {
	char *top = _cgo_topofstack();
	orcrt_isb();
	uint64_t r = ((orcrt_ints4_fn)f->fn)(f->a[0], f->a[1], f->a[2], f->a[3]);
	f = (orcrt_ints_frame *)((char *)f + (_cgo_topofstack() - top));
	f->r = r;
}

typedef uint64_t (*orcrt_regs4_int_fn)(uint64_t, uint64_t, uint64_t, uint64_t, double, double, double, double);
typedef double (*orcrt_regs4_float_fn)(uint64_t, uint64_t, uint64_t, uint64_t, double, double, double, double);

static inline double orcrt_double_of(uint64_t b) {
	double d;
	memcpy(&d, &b, sizeof d);
	return d;
}

// As orcrt_ints4_ret64, with floating arguments (bit patterns; a float in
// the low 32 bits) and an integer result...
void orcrt_regs4_int(orcrt_regs_frame *f) {
	char *top = _cgo_topofstack();
	double d0 = orcrt_double_of(f->w[4]), d1 = orcrt_double_of(f->w[5]);
	double d2 = orcrt_double_of(f->w[6]), d3 = orcrt_double_of(f->w[7]);
	orcrt_isb();
	uint64_t r = ((orcrt_regs4_int_fn)f->fn)(f->w[0], f->w[1], f->w[2], f->w[3], d0, d1, d2, d3);
	f = (orcrt_regs_frame *)((char *)f + (_cgo_topofstack() - top));
	f->r = r;
}

// ... or a floating one, stored as its bit pattern.
void orcrt_regs4_float(orcrt_regs_frame *f) {
	char *top = _cgo_topofstack();
	double d0 = orcrt_double_of(f->w[4]), d1 = orcrt_double_of(f->w[5]);
	double d2 = orcrt_double_of(f->w[6]), d3 = orcrt_double_of(f->w[7]);
	orcrt_isb();
	double r = ((orcrt_regs4_float_fn)f->fn)(f->w[0], f->w[1], f->w[2], f->w[3], d0, d1, d2, d3);
	f = (orcrt_regs_frame *)((char *)f + (_cgo_topofstack() - top));
	memcpy(&f->r, &r, sizeof r);
}

static inline uint64_t orcrt_slice_load(const void *p, uint64_t i, uint32_t k) {
	switch (k & ORCRT_KIND_SIZE) {
	case 1: {
		uint8_t v = ((const uint8_t *)p)[i];
		return (k & ORCRT_KIND_SIGNED) ? (uint64_t)(int64_t)(int8_t)v : v;
	}
	case 2: {
		uint16_t v = ((const uint16_t *)p)[i];
		return (k & ORCRT_KIND_SIGNED) ? (uint64_t)(int64_t)(int16_t)v : v;
	}
	case 4: {
		uint32_t v = ((const uint32_t *)p)[i];
		return (k & ORCRT_KIND_SIGNED) ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	case 8:
		return ((const uint64_t *)p)[i];
	}
	return 0; // Void
}

static inline void orcrt_slice_store(void *p, uint64_t i, uint32_t k, uint64_t v) {
	switch (k & ORCRT_KIND_SIZE) {
	case 1:
		if (k & ORCRT_KIND_BOOL)
			v = (uint8_t)v != 0; // a Go bool is 0 or 1
		((uint8_t *)p)[i] = (uint8_t)v;
		break;
	case 2:
		((uint16_t *)p)[i] = (uint16_t)v;
		break;
	case 4:
		((uint32_t *)p)[i] = (uint32_t)v;
		break;
	case 8:
		((uint64_t *)p)[i] = v;
		break;
	}
}

typedef uint64_t (*orcrt_int1_fn)(uint64_t);

// The slice's elements lie in Go's heap (package native's CallSlice makes
// them escape), which does not move: no _cgo_topofstack fix-up.
void orcrt_call_slice(orcrt_slice_frame *f) {
	const uint64_t n = f->n;
	orcrt_isb();
	if (f->nargs == 1 && (f->in_kind[0] & ~ORCRT_KIND_SIGNED) == 8 &&
	    (f->out_kind & ~ORCRT_KIND_SIGNED) == 8) {
		// One 64-bit integer in, one out: the commonest kernel, spelled out.
		const orcrt_int1_fn fn = (orcrt_int1_fn)f->fn;
		const uint64_t *in = f->in[0];
		uint64_t *out = f->out;
		for (uint64_t i = 0; i < n; i++)
			out[i] = fn(in[i]);
		return;
	}
	const int fret = (f->out_kind & ORCRT_KIND_FLOAT) != 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t w[8] = {0};
		for (uint32_t j = 0; j < f->nargs; j++)
			w[(f->in_kind[j] >> ORCRT_KIND_SLOT) & 7] = orcrt_slice_load(f->in[j], i, f->in_kind[j]);
		double d0 = orcrt_double_of(w[4]), d1 = orcrt_double_of(w[5]);
		double d2 = orcrt_double_of(w[6]), d3 = orcrt_double_of(w[7]);
		uint64_t r;
		if (fret) {
			double d = ((orcrt_regs4_float_fn)f->fn)(w[0], w[1], w[2], w[3], d0, d1, d2, d3);
			memcpy(&r, &d, sizeof r);
		} else {
			r = ((orcrt_regs4_int_fn)f->fn)(w[0], w[1], w[2], w[3], d0, d1, d2, d3);
		}
		orcrt_slice_store(f->out, i, f->out_kind, r);
	}
}

// The system-stack calls' trampolines (package native's SystemStack*):
// their callees cannot call back into Go, so the frame, on the
// goroutine's stack, cannot move during the call and the result is
// stored straight into it.
void orcrt_ints4_fixed(orcrt_ints_frame *f) {
	orcrt_isb();
	f->r = ((orcrt_ints4_fn)f->fn)(f->a[0], f->a[1], f->a[2], f->a[3]);
}

void orcrt_regs4_int_fixed(orcrt_regs_frame *f) {
	double d0 = orcrt_double_of(f->w[4]), d1 = orcrt_double_of(f->w[5]);
	double d2 = orcrt_double_of(f->w[6]), d3 = orcrt_double_of(f->w[7]);
	orcrt_isb();
	f->r = ((orcrt_regs4_int_fn)f->fn)(f->w[0], f->w[1], f->w[2], f->w[3], d0, d1, d2, d3);
}

void orcrt_regs4_float_fixed(orcrt_regs_frame *f) {
	double d0 = orcrt_double_of(f->w[4]), d1 = orcrt_double_of(f->w[5]);
	double d2 = orcrt_double_of(f->w[6]), d3 = orcrt_double_of(f->w[7]);
	orcrt_isb();
	double r = ((orcrt_regs4_float_fn)f->fn)(f->w[0], f->w[1], f->w[2], f->w[3], d0, d1, d2, d3);
	memcpy(&f->r, &r, sizeof r);
}

// dlerror() is per thread: it is read in the same C call as the failing
// dl* function, so the goroutine cannot have moved to another thread.
uintptr_t orcrt_dlopen(const char *path, int flags, char *err, size_t errcap) {
	void *h = dlopen(path, flags);
	if (h == NULL) {
		orcrt_copy_err(dlerror(), err, errcap);
	}
	return (uintptr_t)h;
}

uintptr_t orcrt_dlsym(uintptr_t handle, const char *name, char *err, size_t errcap) {
	(void)dlerror(); // clear: a NULL symbol value is legal, only dlerror tells
	void *p = dlsym((void *)handle, name);
	const char *e = dlerror();
	if (e != NULL) {
		orcrt_copy_err(e, err, errcap);
	} else if (errcap > 0) {
		err[0] = 0;
	}
	return (uintptr_t)p;
}

int orcrt_dlclose(uintptr_t handle, char *err, size_t errcap) {
	int r = dlclose((void *)handle);
	if (r != 0) {
		orcrt_copy_err(dlerror(), err, errcap);
	}
	return r;
}

int orcrt_fflush_all(void) { return fflush(NULL); }

/* Flushes stdout unless another thread holds it: never waits on a lock. */
void orcrt_flush_stdout(void) {
  if (ftrylockfile(stdout) == 0) {
    fflush_unlocked(stdout);
    funlockfile(stdout);
  }
}

size_t orcrt_thread_stack_size(void) {
	pthread_attr_t a;
	size_t s = 0;
	if (pthread_getattr_np(pthread_self(), &a) != 0) {
		return 0;
	}
	pthread_attr_getstacksize(&a, &s);
	pthread_attr_destroy(&a);
	return s;
}

// Dispatch contexts are addresses inside this otherwise unused array, one
// per registered session: unique, non-zero, never JIT'd memory, and never
// dereferenced. 4096 bytes of .bss (no memory until touched; never touched).
#define ORCRT_DISPATCH_SLOTS 4096
static char orcrt_dispatch_ctx_space[ORCRT_DISPATCH_SLOTS];

uintptr_t orcrt_dispatch_ctx_base(void) { return (uintptr_t)orcrt_dispatch_ctx_space; }
size_t orcrt_dispatch_ctx_slots(void) { return ORCRT_DISPATCH_SLOTS; }

// Called natively by JIT'd code (the ORC runtime's __orc_rt_jit_dispatch)
// on any thread, including threads the JIT'd program created. Blocks until
// the Go handler returns.
__attribute__((visibility("default"), used))
orcrt_CWrapperFunctionBuffer __llvm_orc_SimpleRemoteEPC_dispatch_fn(void *ctx, const void *tag, const char *data, size_t size) {
	orcrt_CWrapperFunctionBuffer r;
	r.Data.ValuePtr = NULL;
	r.Size = 0;
	orcrtGoDispatch((uintptr_t)ctx, (uintptr_t)tag, (char *)data, size, &r);
	// The controller may have linked new code while we waited; this thread
	// may jump into it as soon as we return.
	orcrt_isb();
	return r;
}

uintptr_t orcrt_dispatch_fn_addr(void) { return (uintptr_t)&__llvm_orc_SimpleRemoteEPC_dispatch_fn; }
