// Fixtures of package call's tier tests: functions whose stack use is
// known exactly, written in assembly so that no compiler decides it.

	.text

// int64_t callee_inc(int64_t x): x+1, no stack.
	.globl	callee_inc
	.type	callee_inc, @function
callee_inc:
	leaq	1(%rdi), %rax
	ret

// uint64_t callee_fill(uint64_t n): a leaf with a frame of n bytes (n a
// multiple of 8) that writes every byte of its frame and of the 128-byte
// red zone below it, and returns n: it uses n + 8 (the return address) +
// 128 bytes of stack.
	.globl	callee_fill
	.type	callee_fill, @function
callee_fill:
	movq	%rsp, %rax
	subq	%rdi, %rsp
	leaq	-128(%rsp), %rcx
	movabsq	$0x5a5a5a5a5a5a5a5a, %rdx
1:	cmpq	%rax, %rcx
	jae	2f
	movq	%rdx, (%rcx)
	addq	$8, %rcx
	jmp	1b
2:	movq	%rax, %rsp
	movq	%rdi, %rax
	ret

// uint64_t callee_spin(uint64_t n): counts n down to 0 and returns n.
	.globl	callee_spin
	.type	callee_spin, @function
callee_spin:
	movq	%rdi, %rax
	movq	%rdi, %rcx
	testq	%rcx, %rcx
	je	2f
1:	decq	%rcx
	jne	1b
2:	ret

// double callee_addf(double a, double b): a+b.
	.globl	callee_addf
	.type	callee_addf, @function
callee_addf:
	addsd	%xmm1, %xmm0
	ret

// int64_t callee_add4(int64_t a, int64_t b, int64_t c, int64_t d): a+b+c+d.
	.globl	callee_add4
	.type	callee_add4, @function
callee_add4:
	leaq	(%rdi,%rsi), %rax
	addq	%rdx, %rax
	addq	%rcx, %rax
	ret

// double callee_mix(int64_t a, double x): a*1000 + x.
	.globl	callee_mix
	.type	callee_mix, @function
callee_mix:
	imulq	$1000, %rdi, %rdi
	cvtsi2sdq	%rdi, %xmm1
	addsd	%xmm1, %xmm0
	ret

// void callee_fault(void): a store to address 8.
	.globl	callee_fault
	.type	callee_fault, @function
callee_fault:
	movq	$8, %rax
	movq	$1, (%rax)
	ret

	.section	.note.GNU-stack,"",@progbits
