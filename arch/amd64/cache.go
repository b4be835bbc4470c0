package amd64

// FlushICache is a no-op: x86-64 instruction fetch is coherent with data
// stores. It keeps the facade uniform across GOARCHes.
func FlushICache(addr, n uintptr) {}

// DecodeCLFlushLine extracts the CLFLUSH line size in bytes from CPUID
// leaf 1 EBX (bits 15:8, in units of 8 bytes). It returns 64 when the
// field is zero (not reported), the size of every x86-64 line to date.
func DecodeCLFlushLine(ebx uint32) uintptr {
	if n := uintptr(ebx>>8&0xff) * 8; n != 0 {
		return n
	}
	return 64
}
