package amd64

import "testing"

func TestDecodeCLFlushLine(t *testing.T) {
	tests := []struct {
		name string
		ebx  uint32
		want uintptr
	}{
		// EBX of CPUID.1 from real parts: byte 1 = CLFLUSH size / 8.
		{"Intel Xeon (Skylake-SP)", 0x00100800, 64},
		{"AMD EPYC (Zen 2)", 0x00020800, 64},
		{"field zero falls back to 64", 0x00000000, 64},
		{"128-byte report", 0x00001000, 128},
	}
	for _, tc := range tests {
		if got := DecodeCLFlushLine(tc.ebx); got != tc.want {
			t.Errorf("%s: DecodeCLFlushLine(%#x) = %d, want %d", tc.name, tc.ebx, got, tc.want)
		}
	}
}
