//go:build purego || !(386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm)

package sps

// Big-endian hosts (and the purego build tag) use the portable element-wise
// paths.

const bulkFast = false

func appendIntsRaw[T FixedInt](b []byte, v []T) []byte { return appendIntsGeneric(b, v) }

func decodeIntsRaw[T FixedInt](dst []T, src []byte, n int) []T {
	return decodeIntsGeneric(dst, src, n)
}
