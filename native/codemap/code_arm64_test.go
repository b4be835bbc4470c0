//go:build arm64

package codemap_test

// retEmpty is CWrapperFunctionBuffer f(const char*, size_t) returning
// {NULL, 0} (the empty result), hand-assembled:
//
//	mov x0, #0; mov x1, #0; ret
var retEmpty = []byte{
	0x00, 0x00, 0x80, 0xd2,
	0x01, 0x00, 0x80, 0xd2,
	0xc0, 0x03, 0x5f, 0xd6,
}
