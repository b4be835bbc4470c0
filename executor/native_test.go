//go:build cgo

package executor_test

import "github.com/orcgo/orcrt/native"

// nativeCall calls a wrapper-ABI function of a library loaded in this
// process directly.
func nativeCall(fn uintptr, args []byte) ([]byte, error) { return native.CallWrapper(fn, args, nil) }
