// Fixtures of package call's tier tests: functions whose stack use is
// known exactly, written in assembly so that no compiler decides it.

	.text

// int64_t callee_inc(int64_t x): x+1, no stack.
	.globl	callee_inc
	.type	callee_inc, %function
callee_inc:
	add	x0, x0, #1
	ret

// uint64_t callee_fill(uint64_t n): a leaf with a frame of n bytes (n a
// multiple of 16) that writes every byte of it and returns n: it uses n
// bytes of stack (AAPCS64 has no red zone; the return address stays in LR).
	.globl	callee_fill
	.type	callee_fill, %function
callee_fill:
	mov	x1, sp
	sub	sp, sp, x0
	mov	x2, sp
	mov	x3, #0x5a5a
1:	cmp	x2, x1
	b.hs	2f
	str	x3, [x2], #8
	b	1b
2:	mov	sp, x1
	ret

// uint64_t callee_spin(uint64_t n): counts n down to 0 and returns n.
	.globl	callee_spin
	.type	callee_spin, %function
callee_spin:
	mov	x1, x0
	cbz	x1, 2f
1:	subs	x1, x1, #1
	b.ne	1b
2:	ret

// double callee_addf(double a, double b): a+b.
	.globl	callee_addf
	.type	callee_addf, %function
callee_addf:
	fadd	d0, d0, d1
	ret

// int64_t callee_add4(int64_t a, int64_t b, int64_t c, int64_t d): a+b+c+d.
	.globl	callee_add4
	.type	callee_add4, %function
callee_add4:
	add	x0, x0, x1
	add	x0, x0, x2
	add	x0, x0, x3
	ret

// double callee_mix(int64_t a, double x): a*1000 + x.
	.globl	callee_mix
	.type	callee_mix, %function
callee_mix:
	mov	x1, #1000
	mul	x0, x0, x1
	scvtf	d1, x0
	fadd	d0, d0, d1
	ret

// void callee_fault(void): a store to address 8.
	.globl	callee_fault
	.type	callee_fault, %function
callee_fault:
	mov	x0, #8
	str	x0, [x0]
	ret

	.section	.note.GNU-stack,"",%progbits
