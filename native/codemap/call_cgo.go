//go:build cgo

package codemap

import "github.com/orcgo/orcrt/native"

// CallWrapper is the one way orcrt calls a wrapper function at an address
// it was given (a controller's call of JIT'd code, an allocation action):
// Check, then native.CallWrapper. A refused address returns dst and the
// *NotCodeError; the call is not made.
func CallWrapper(fn uintptr, args, dst []byte) ([]byte, error) {
	if fn != 0 { // native refuses 0 with its own error
		if err := Check(fn); err != nil {
			return dst, err
		}
	}
	return native.CallWrapper(fn, args, dst)
}
