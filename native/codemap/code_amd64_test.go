//go:build amd64

package codemap_test

// retEmpty is CWrapperFunctionBuffer f(const char*, size_t) returning
// {NULL, 0} (the empty result), hand-assembled:
//
//	xor eax, eax; xor edx, edx; ret
var retEmpty = []byte{0x31, 0xc0, 0x31, 0xd2, 0xc3}
