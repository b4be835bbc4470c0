//go:build amd64

package arch

import "github.com/orcgo/orcrt/arch/amd64"

// Supported reports whether FlushICache is implemented for this GOARCH.
const Supported = true

var caches = func() Caches {
	n := amd64.CacheLine()
	return Caches{DataLine: n, InstLine: n, Coherent: true, Source: "cpuid"}
}()

// FlushICache publishes instructions written to [addr, addr+n). On amd64
// it is a no-op: instruction fetch is coherent with data stores (see
// package arch/amd64).
func FlushICache(addr, n uintptr) { amd64.FlushICache(addr, n) }
