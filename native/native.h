// C side of package native. Declarations only: this header is included by
// the cgo preamble of a file with //export, which must not define anything.
#ifndef ORCRT_NATIVE_H
#define ORCRT_NATIVE_H

#include <stddef.h>
#include <stdint.h>

// The C ABI of wrapper functions and allocation actions (LLVM
// orc::shared::CWrapperFunctionResult / orc_rt_WrapperFunctionBuffer).
typedef struct {
	union {
		char *ValuePtr;
		char Value[sizeof(char *)];
	} Data;
	size_t Size;
} orcrt_CWrapperFunctionBuffer;

// orcrt_call_wrapper returns the callee's buffer as is (the natural
// states: empty, inline, large with a malloc'd pointer, OOB with a
// malloc'd message), except that when the payload fit in the caller's dst
// it was copied there, the C buffer freed, and Size carries a flag:
#define ORCRT_COPIED ((size_t)1 << 63)     // Size & ~flags bytes of payload in dst
#define ORCRT_OOB_COPIED ((size_t)1 << 62) // Size & ~flags bytes of OOB message in dst
#define ORCRT_FLAGS (ORCRT_COPIED | ORCRT_OOB_COPIED)

orcrt_CWrapperFunctionBuffer orcrt_call_wrapper(uintptr_t fn, const char *args, size_t n, char *dst, size_t cap);
int orcrt_call_main(uintptr_t fn, int argc, const char *packed, size_t packed_len, int *ok);
int orcrt_call_int_void(uintptr_t fn);
int orcrt_call_int_int(uintptr_t fn, int arg);

// The frame of package native's CallInts4Ret32 and CallInts4Ret64
// (IntsFrame), passed by runtime.cgocall itself: fn, four integer
// arguments, a 64-bit result.
typedef struct {
	uintptr_t fn;
	uint64_t a[4];
	uint64_t r;
} orcrt_ints_frame;
int32_t orcrt_ints4_ret32(orcrt_ints_frame *f);
void orcrt_ints4_ret64(orcrt_ints_frame *f);

// RegsFrame's: fn, 4 integer and 4 floating argument words, a result.
typedef struct {
	uintptr_t fn;
	uint64_t w[8];
	uint64_t r;
} orcrt_regs_frame;
void orcrt_regs4_int(orcrt_regs_frame *f);
void orcrt_regs4_float(orcrt_regs_frame *f);
void orcrt_ints4_fixed(orcrt_ints_frame *f);
void orcrt_regs4_int_fixed(orcrt_regs_frame *f);
void orcrt_regs4_float_fixed(orcrt_regs_frame *f);

// SliceFrame's: fn called once per element, out[i] = fn(in[0][i], ...),
// n elements; a kind is ORCRT_KIND_* or'ed with the element's size in
// bytes and, for an argument, its register word shifted by
// ORCRT_KIND_SLOT (0-3 integer, 4-7 floating, as orcrt_regs_frame's w).
#define ORCRT_KIND_SIZE 0xf
#define ORCRT_KIND_SIGNED 0x10
#define ORCRT_KIND_FLOAT 0x20
#define ORCRT_KIND_BOOL 0x40
#define ORCRT_KIND_SLOT 8
typedef struct {
	uintptr_t fn;
	const void *in[4];
	void *out;
	uint64_t n;
	uint32_t in_kind[4];
	uint32_t out_kind;
	uint32_t nargs;
} orcrt_slice_frame;
void orcrt_call_slice(orcrt_slice_frame *f);

uintptr_t orcrt_dlopen(const char *path, int flags, char *err, size_t errcap);
uintptr_t orcrt_dlsym(uintptr_t handle, const char *name, char *err, size_t errcap);
int orcrt_dlclose(uintptr_t handle, char *err, size_t errcap);
int orcrt_fflush_all(void);
void orcrt_flush_stdout(void);
size_t orcrt_thread_stack_size(void);

uintptr_t orcrt_dispatch_fn_addr(void);
uintptr_t orcrt_dispatch_ctx_base(void);
size_t orcrt_dispatch_ctx_slots(void);

orcrt_CWrapperFunctionBuffer __llvm_orc_SimpleRemoteEPC_dispatch_fn(void *ctx, const void *tag, const char *data, size_t size);

#endif
