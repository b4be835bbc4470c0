//go:build cgo

package entry

import (
	"fmt"

	"github.com/orcgo/orcrt/native/codemap"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/sps"
)

// guard checks, before a native call, that fn is executable code in this
// process (package codemap: JIT'd code, the text of a loaded object, or
// any executable mapping). If it is not, it returns the out-of-band
// result naming the address and false, and the call must not be made.
// Address 0 passes: package native refuses it with its own error.
func guard(what string, fn sps.Addr) (rt.WrapperResult, bool) {
	if fn == 0 {
		return rt.WrapperResult{}, true
	}
	if err := codemap.Check(uintptr(fn)); err != nil {
		return rt.OutOfBandResult(fmt.Sprintf("entry: %s: %v", what, err)), false
	}
	return rt.WrapperResult{}, true
}
