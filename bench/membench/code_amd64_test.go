//go:build cgo && amd64

package membench

// echo: CWrapperFunctionBuffer echo(const char *a, size_t n) returns
// {Data = *(uint64*)a, Size = *(uint64*)(a+8)}.
var echoCode = []byte{
	0x48, 0x8b, 0x07, // mov rax, qword ptr [rdi]
	0x48, 0x8b, 0x57, 0x08, // mov rdx, qword ptr [rdi + 0x8]
	0xc3, // ret
}
