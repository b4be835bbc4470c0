//go:build cgo

package alloc

import (
	"errors"

	"github.com/orcgo/orcrt/rt/native"
	"github.com/orcgo/orcrt/sps"
)

// callNative calls the action at fn through rt/native (one Go→C
// transition when the result fits in dst's spare capacity).
func callNative(fn sps.Addr, args, dst []byte) ([]byte, error) {
	return native.CallWrapper(uintptr(fn), args, dst)
}

// oobMessage returns the message of a native out-of-band error.
func oobMessage(err error) (string, bool) {
	var oob *native.OOBError
	if errors.As(err, &oob) {
		return oob.Msg, true
	}
	return "", false
}
