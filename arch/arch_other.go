//go:build !amd64 && !arm64

package arch

import "runtime"

// Supported reports whether FlushICache is implemented for this GOARCH.
const Supported = false

var caches = Caches{DataLine: 64, InstLine: 64, Source: "unknown GOARCH " + runtime.GOARCH}

// FlushICache is not implemented on this GOARCH; it panics. Package slab
// checks [Supported] and refuses executable protections instead.
func FlushICache(addr, n uintptr) {
	panic("arch: FlushICache: instruction-cache maintenance not implemented for GOARCH=" + runtime.GOARCH)
}
