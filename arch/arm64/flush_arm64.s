#include "textflag.h"

// func readCTR() uint64
TEXT ·readCTR(SB), NOSPLIT|NOFRAME, $0-8
	MRS  CTR_EL0, R0
	MOVD R0, ret+0(FP)
	RET

// func syncRange(dstart, istart, end, dline, iline, ops uintptr)
TEXT ·syncRange(SB), NOSPLIT|NOFRAME, $0-48
	MOVD dstart+0(FP), R0
	MOVD istart+8(FP), R1
	MOVD end+16(FP), R2
	MOVD dline+24(FP), R3
	MOVD iline+32(FP), R4
	MOVD ops+40(FP), R5
	TBZ  $0, R5, dsync // OpCleanD clear: IDC=1, no D-side clean needed

dloop:
	DC   CVAU, R0    // clean D line to the point of unification
	ADD  R3, R0, R0
	CMP  R2, R0
	BLO  dloop

dsync:
	DSB  $11         // DSB ISH: cleans (or plain stores) complete
	TBZ  $1, R5, done // OpInvalidate clear: DIC=1

iloop:
	SYS  $0x37520, R1 // IC IVAU, R1
	ADD  R4, R1, R1
	CMP  R2, R1
	BLO  iloop
	DSB  $11          // DSB ISH: invalidations complete

done:
	ISB  $15
	RET

// func isb()
TEXT ·isb(SB), NOSPLIT|NOFRAME, $0-0
	ISB  $15
	RET
