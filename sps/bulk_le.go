//go:build !purego && (386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm)

package sps

import "unsafe"

// On little-endian hosts a []T's memory is its SPS encoding: the bulk
// paths are one copy each way.

const bulkFast = true

func appendIntsRaw[T FixedInt](b []byte, v []T) []byte {
	if len(v) == 0 {
		return b
	}
	raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*sizeOf[T]())
	return append(b, raw...)
}

func decodeIntsRaw[T FixedInt](dst []T, src []byte, n int) []T {
	if n == 0 {
		return dst
	}
	l := len(dst)
	dst = dst[:l+n]
	raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst[l:]))), n*sizeOf[T]())
	copy(raw, src)
	return dst
}
