//go:build cgo && arm64

package membench

// echo: CWrapperFunctionBuffer echo(const char *a, size_t n) returns
// {Data = *(uint64*)a, Size = *(uint64*)(a+8)}.
var echoCode = []byte{
	0x00, 0x04, 0x40, 0xa9, // ldp x0, x1, [x0]
	0xc0, 0x03, 0x5f, 0xd6, // ret
}
