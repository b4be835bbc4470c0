// No-op C functions shaped like native's calls, the references of
// BenchmarkNativeCall. Included by the cgo preamble, so they compile into
// cgo's stubs as native's fast path does.
#ifndef ORCRT_MEMBENCH_CGOREF_H
#define ORCRT_MEMBENCH_CGOREF_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	union { char *ValuePtr; char Value[8]; } Data;
	size_t Size;
} membench_buf;

// Same signature as native's wrapper trampoline, doing nothing: the
// cost cgo itself charges for marshalling five arguments and returning a
// 16-byte struct, measured beside the empty call.
static membench_buf membench_noop5(uintptr_t fn, const char *args, size_t n, char *dst, size_t cap) {
	membench_buf r;
	r.Data.ValuePtr = NULL;
	r.Size = 8;
	return r;
}

// The signature of native's fast path (two pointers, no result: the
// call's frame and outcome travel in the second), doing nothing.
static void membench_noop_frame(const char *args, char *frame) {}

#endif
