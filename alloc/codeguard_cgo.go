//go:build cgo

package alloc

import (
	"github.com/orcgo/orcrt/rt/codemap"
	"github.com/orcgo/orcrt/sps"
)

// checkCode refuses a native action whose address is not executable code
// in this process (package codemap): the action fails with an error
// naming the address instead of crashing the process. The check makes no
// system call when the address is code.
func checkCode(fn sps.Addr) error {
	if err := codemap.Check(uintptr(fn)); err != nil {
		return &ActionError{Fn: fn, Msg: "alloc: action not run: " + err.Error(), Err: err}
	}
	return nil
}
