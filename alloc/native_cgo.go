//go:build cgo

package alloc

import (
	"errors"

	"github.com/orcgo/orcrt/native/codemap"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/sps"
)

// callNative calls the action at fn if it is code (one Go→C transition
// when the result fits in dst's spare capacity).
func callNative(fn sps.Addr, args, dst []byte) ([]byte, error) {
	return codemap.CallWrapper(uintptr(fn), args, dst)
}

// notCode reports whether err is codemap's refusal of a non-code address.
func notCode(err error) bool {
	var nc *codemap.NotCodeError
	return errors.As(err, &nc)
}

// oobMessage returns the message of a native out-of-band error.
func oobMessage(err error) (string, bool) {
	var oob *rt.OutOfBandError
	if errors.As(err, &oob) {
		return oob.Msg, true
	}
	return "", false
}
