//go:build !cgo

package alloc

import (
	"errors"
	"fmt"

	"github.com/orcgo/orcrt/sps"
)

// ErrNoNativeCalls is the failure of every native action in a build
// without cgo: only actions registered as Go wrapper functions can run.
var ErrNoNativeCalls = errors.New("alloc: native allocation actions need cgo")

func callNative(fn sps.Addr, _, dst []byte) ([]byte, error) {
	return dst, fmt.Errorf("%w (action %#x)", ErrNoNativeCalls, uint64(fn))
}

func oobMessage(error) (string, bool) { return "", false }

func notCode(error) bool { return false }
