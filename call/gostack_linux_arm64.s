//go:build cgo

#include "textflag.h"

// TierGoStack's trampolines, as gostack_amd64.s. Go's arm64 frame keeps
// the saved FP and LR at -8(RSP) and 0(RSP), below the locals (8(RSP) up
// to 8+size(RSP)); the canary is the lowest local word. R19 to R23 are
// callee-saved in AAPCS64 (so is R28, Go's g): they keep the goroutine's
// stack pointer, the frame, and copies of the saved FP and LR, put back
// after the call so that an overrun the canary reports cannot also
// redirect the return. An ISB first, as before every call into JIT'd
// code (package native).

#define CANARY $0x6f7263727467736b

#define GOSTACK(size) \
	MOVD	f+0(FP), R21; \
	MOVD	CANARY, R0; \
	MOVD	R0, 8(RSP); \
	MOVD	RSP, R19; \
	MOVD	-8(RSP), R22; \
	MOVD	0(RSP), R23; \
	ADD	$(size+8), R19, R20; \
	AND	$~15, R20; \
	LDP	8(R21), (R0, R1); \
	LDP	24(R21), (R2, R3); \
	FMOVD	40(R21), F0; \
	FMOVD	48(R21), F1; \
	FMOVD	56(R21), F2; \
	FMOVD	64(R21), F3; \
	MOVD	0(R21), R9; \
	MOVD	R20, RSP; \
	ISB	$15; \
	CALL	(R9); \
	MOVD	R19, RSP; \
	MOVD	R22, -8(RSP); \
	MOVD	R23, 0(RSP); \
	MOVD	R0, 72(R21); \
	FMOVD	F0, 80(R21); \
	MOVD	CANARY, R0; \
	MOVD	8(RSP), R1; \
	CMP	R0, R1; \
	CSET	EQ, R2; \
	MOVB	R2, ret+8(FP); \
	RET

// The integer-only form: the arguments and the result in the trampoline's
// own argument frame (ABI0), no gsFrame.
#define GOSTACK_INTS(size) \
	MOVD	CANARY, R0; \
	MOVD	R0, 8(RSP); \
	MOVD	RSP, R19; \
	MOVD	-8(RSP), R22; \
	MOVD	0(RSP), R23; \
	ADD	$(size+8), R19, R20; \
	AND	$~15, R20; \
	MOVD	a0+8(FP), R0; \
	MOVD	a1+16(FP), R1; \
	MOVD	a2+24(FP), R2; \
	MOVD	a3+32(FP), R3; \
	MOVD	fn+0(FP), R9; \
	MOVD	R20, RSP; \
	ISB	$15; \
	CALL	(R9); \
	MOVD	R19, RSP; \
	MOVD	R22, -8(RSP); \
	MOVD	R23, 0(RSP); \
	MOVD	R0, r+40(FP); \
	MOVD	CANARY, R0; \
	MOVD	8(RSP), R1; \
	CMP	R0, R1; \
	CSET	EQ, R2; \
	MOVB	R2, ok+48(FP); \
	RET

// func goStackInts256(fn uintptr, a0, a1, a2, a3 uint64) (r uint64, ok bool)
TEXT ·goStackInts256(SB), 0, $256-49
	GOSTACK_INTS(256)

// func goStackInts1K(fn uintptr, a0, a1, a2, a3 uint64) (r uint64, ok bool)
TEXT ·goStackInts1K(SB), 0, $1024-49
	GOSTACK_INTS(1024)

// func goStackInts4K(fn uintptr, a0, a1, a2, a3 uint64) (r uint64, ok bool)
TEXT ·goStackInts4K(SB), 0, $4096-49
	GOSTACK_INTS(4096)

// func goStackInts16K(fn uintptr, a0, a1, a2, a3 uint64) (r uint64, ok bool)
TEXT ·goStackInts16K(SB), 0, $16384-49
	GOSTACK_INTS(16384)

// func goStack256(f *gsFrame) bool
TEXT ·goStack256(SB), 0, $256-9
	GOSTACK(256)

// func goStack1K(f *gsFrame) bool
TEXT ·goStack1K(SB), 0, $1024-9
	GOSTACK(1024)

// func goStack4K(f *gsFrame) bool
TEXT ·goStack4K(SB), 0, $4096-9
	GOSTACK(4096)

// func goStack16K(f *gsFrame) bool
TEXT ·goStack16K(SB), 0, $16384-9
	GOSTACK(16384)
