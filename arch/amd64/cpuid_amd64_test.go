//go:build amd64

package amd64

import "testing"

func TestCacheLineFromCPUID(t *testing.T) {
	eax, _, _, _ := cpuid(0, 0)
	if eax < 1 {
		t.Skip("CPUID leaf 1 not available")
	}
	n := CacheLine()
	if n < 32 || n > 256 || n&(n-1) != 0 {
		t.Fatalf("implausible cache line size %d", n)
	}
	FlushICache(0, 1) // documented no-op: must not touch memory
	t.Logf("cache line %d bytes", n)
}
