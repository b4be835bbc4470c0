//go:build cgo && arm64

package allocbench

// noop is CWrapperFunctionBuffer noop(const char *a, size_t n), returning
// the inline SPSError success byte {Value[0] = 0, Size = 1} in x0, x1.
// Assembled with llvm-mc (LLVM 22, -triple=aarch64-linux-gnu):
var noop = []byte{
	0x00, 0x00, 0x80, 0xd2, // 0: mov x0, #0x0
	0x21, 0x00, 0x80, 0xd2, // 4: mov x1, #0x1
	0xc0, 0x03, 0x5f, 0xd6, // 8: ret
}
