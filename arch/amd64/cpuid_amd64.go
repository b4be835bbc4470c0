//go:build amd64

package amd64

// cpuid executes CPUID with EAX=eaxArg and ECX=ecxArg.
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

// CacheLine returns the data cache line size from CPUID leaf 1.
func CacheLine() uintptr {
	_, ebx, _, _ := cpuid(1, 0)
	return DecodeCLFlushLine(ebx)
}
