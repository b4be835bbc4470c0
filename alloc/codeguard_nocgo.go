//go:build !cgo

package alloc

import "github.com/orcgo/orcrt/sps"

// checkCode has nothing to guard without cgo: callNative refuses every
// native action.
func checkCode(sps.Addr) error { return nil }
