//go:build cgo && amd64

package allocbench

// noop is CWrapperFunctionBuffer noop(const char *a, size_t n), returning
// the inline SPSError success byte {Value[0] = 0, Size = 1}. Assembled
// with llvm-mc (LLVM 22, -triple=x86_64-linux-gnu):
var noop = []byte{
	0x31, 0xc0, // 0: xor eax, eax
	0xba, 0x01, 0x00, 0x00, 0x00, // 2: mov edx, 0x1
	0xc3, // 7: ret
}
