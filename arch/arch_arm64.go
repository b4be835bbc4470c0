//go:build arm64

package arch

import "github.com/orcgo/orcrt/arch/arm64"

// Supported reports whether FlushICache is implemented for this GOARCH.
const Supported = true

var caches = func() Caches {
	c := arm64.Cached()
	return Caches{
		DataLine:    c.DminLine,
		InstLine:    c.IminLine,
		Coherent:    c.IDC && c.DIC,
		CleanD:      !c.IDC,
		InvalidateI: !c.DIC,
		Source:      c.String(),
	}
}()

// FlushICache publishes instructions written to [addr, addr+n): DC CVAU,
// DSB ISH, IC IVAU, DSB ISH, ISB (halves skipped per CTR_EL0 IDC/DIC).
// The range must be mapped readable.
func FlushICache(addr, n uintptr) { arm64.FlushICache(addr, n) }
