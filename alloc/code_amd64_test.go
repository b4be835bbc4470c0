//go:build cgo && amd64

package alloc

// Hand-assembled amd64 machine code for the tests, one instruction per
// line. Assembled with llvm-mc (LLVM 22, -triple=x86_64-linux-gnu) from the
// assembly in the comments (disassembly by llvm-objdump); branch targets
// are byte offsets within each function. Every function has the C
// signature of an allocation action:
//
//	CWrapperFunctionBuffer f(const char *a, size_t n)   // rdi, rsi -> rax (Data), rdx (Size)
var mc = machineCode{
	// noop(a, n): returns the inline SPSError success byte {Value[0] = 0, Size = 1}
	noop: []byte{
		0x31, 0xc0, // 0: xor eax, eax
		0xba, 0x01, 0x00, 0x00, 0x00, // 2: mov edx, 0x1
		0xc3, // 7: ret
	},
	// add(a, n): a = {u64 *counter, u64 delta}; atomically *counter += delta; returns success
	add: []byte{
		0x48, 0x8b, 0x07, // 0: mov rax, qword ptr [rdi]
		0x48, 0x8b, 0x4f, 0x08, // 3: mov rcx, qword ptr [rdi + 0x8]
		0xf0,             // 7: lock
		0x48, 0x01, 0x08, // 8: add qword ptr [rax], rcx
		0x31, 0xc0, // b: xor eax, eax
		0xba, 0x01, 0x00, 0x00, 0x00, // d: mov edx, 0x1
		0xc3, // 12: ret
	},
	// record(a, n): a = {u64 *log, u64 id}; i = atomic log[0]++; log[1+i] = id; returns success
	record: []byte{
		0x48, 0x8b, 0x07, // 0: mov rax, qword ptr [rdi]
		0x48, 0x8b, 0x4f, 0x08, // 3: mov rcx, qword ptr [rdi + 0x8]
		0xba, 0x01, 0x00, 0x00, 0x00, // 7: mov edx, 0x1
		0xf0,                   // c: lock
		0x48, 0x0f, 0xc1, 0x10, // d: xadd qword ptr [rax], rdx
		0x48, 0x89, 0x4c, 0xd0, 0x08, // 11: mov qword ptr [rax + 8*rdx + 0x8], rcx
		0x31, 0xc0, // 16: xor eax, eax
		0xba, 0x01, 0x00, 0x00, 0x00, // 18: mov edx, 0x1
		0xc3, // 1d: ret
	},
	// retbuf(a, n): a = {malloc, u64 len, u64 oob, bytes[len]}; p = malloc(len), copies the
	// bytes; returns {p, oob ? 0 : len} (oob: an out-of-band error, bytes NUL-terminated)
	retbuf: []byte{
		0x53,             // 0: push rbx
		0x48, 0x89, 0xfb, // 1: mov rbx, rdi
		0x48, 0x8b, 0x7b, 0x08, // 4: mov rdi, qword ptr [rbx + 0x8]
		0xff, 0x13, // 8: call qword ptr [rbx]
		0x48, 0x8b, 0x4b, 0x08, // a: mov rcx, qword ptr [rbx + 0x8]
		0x31, 0xd2, // e: xor edx, edx
		0x48, 0x39, 0xca, // 10: cmp rdx, rcx
		0x73, 0x0e, // 13: jae 0x23
		0x44, 0x8a, 0x44, 0x13, 0x18, // 15: mov r8b, byte ptr [rbx + rdx + 0x18]
		0x44, 0x88, 0x04, 0x10, // 1a: mov byte ptr [rax + rdx], r8b
		0x48, 0xff, 0xc2, // 1e: inc rdx
		0xeb, 0xed, // 21: jmp 0x10
		0x48, 0x89, 0xca, // 23: mov rdx, rcx
		0x45, 0x31, 0xc9, // 26: xor r9d, r9d
		0x48, 0x83, 0x7b, 0x10, 0x00, // 29: cmp qword ptr [rbx + 0x10], 0x0
		0x49, 0x0f, 0x45, 0xd1, // 2e: cmovne rdx, r9
		0x5b, // 32: pop rbx
		0xc3, // 33: ret
	},
	// empty(a, n): returns {NULL, 0}, an empty result
	empty: []byte{
		0x31, 0xc0, // 0: xor eax, eax
		0x31, 0xd2, // 2: xor edx, edx
		0xc3, // 4: ret
	},
}
