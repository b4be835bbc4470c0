//go:build arm64

package arm64

import (
	"testing"
	"unsafe"
)

func TestCachedMatchesRegister(t *testing.T) {
	c := Cached()
	if c.Raw != ReadCTR() {
		t.Fatalf("cached CTR %#x != register %#x", c.Raw, ReadCTR())
	}
	if c.DminLine < 4 || c.IminLine < 4 || c.DminLine&(c.DminLine-1) != 0 || c.IminLine&(c.IminLine-1) != 0 {
		t.Fatalf("implausible line sizes: %v", c)
	}
	t.Logf("%v", c)
}

// TestFlushICacheRanges runs the sequence over Go memory (readable, so the
// maintenance instructions are permitted) with odd starts and lengths,
// including ranges that straddle lines; it checks nothing faults or loops.
func TestFlushICacheRanges(t *testing.T) {
	buf := make([]byte, 8192)
	base := uintptr(unsafe.Pointer(&buf[0]))
	for _, r := range [][2]uintptr{{0, 1}, {1, 1}, {63, 2}, {100, 1000}, {0, 8192}, {4095, 4097}, {5, 0}} {
		FlushICache(base+r[0], r[1])
	}
	ISB()
}
