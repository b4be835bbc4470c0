//go:build cgo

#include "textflag.h"

// TierGoStack's trampolines: one per frame size of goStackFrames. Each is
// an ordinary Go function with a frame of that size, so its prologue's
// stack check grows the goroutine's stack to hold it (as for any Go
// function); the JIT'd function then runs with its stack pointer at the
// frame's top, 16-byte aligned, and uses at most its proven bound below
// it. The frame's lowest word holds a canary, checked after the call.
//
// The frame (gsFrame): fn at 0, the integer argument words at 8-32, the
// floating ones at 40-64, the integer result at 72, the floating one at 80.
// BX, R12 and R13 are callee-saved in the C ABI: they keep the frame and
// the goroutine's stack pointer across the call. The caller (ABIInternal)
// restores R14 (g) and X15 after an ABI0 call, so C may clobber them.

#define CANARY $0x6f7263727467736b

#define GOSTACK(size) \
	MOVQ	f+0(FP), BX; \
	MOVQ	CANARY, AX; \
	MOVQ	AX, 0(SP); \
	MOVQ	SP, R12; \
	LEAQ	size(SP), R13; \
	ANDQ	$~15, R13; \
	MOVQ	8(BX), DI; \
	MOVQ	16(BX), SI; \
	MOVQ	24(BX), DX; \
	MOVQ	32(BX), CX; \
	MOVQ	40(BX), X0; \
	MOVQ	48(BX), X1; \
	MOVQ	56(BX), X2; \
	MOVQ	64(BX), X3; \
	MOVQ	0(BX), AX; \
	MOVQ	R13, SP; \
	CALL	AX; \
	MOVQ	R12, SP; \
	MOVQ	AX, 72(BX); \
	MOVQ	X0, 80(BX); \
	MOVQ	CANARY, AX; \
	CMPQ	AX, 0(SP); \
	SETEQ	ret+8(FP); \
	RET

// The integer-only form: the arguments and the result in the trampoline's
// own argument frame (ABI0), no gsFrame.
#define GOSTACK_INTS(size) \
	MOVQ	CANARY, AX; \
	MOVQ	AX, 0(SP); \
	MOVQ	SP, R12; \
	LEAQ	size(SP), R13; \
	ANDQ	$~15, R13; \
	MOVQ	a0+8(FP), DI; \
	MOVQ	a1+16(FP), SI; \
	MOVQ	a2+24(FP), DX; \
	MOVQ	a3+32(FP), CX; \
	MOVQ	fn+0(FP), AX; \
	MOVQ	R13, SP; \
	CALL	AX; \
	MOVQ	R12, SP; \
	MOVQ	AX, r+40(FP); \
	MOVQ	CANARY, AX; \
	CMPQ	AX, 0(SP); \
	SETEQ	ok+48(FP); \
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
