//go:build !linux

package alloc

import (
	"errors"
	"runtime"
)

// unsupportedError names a feature this operating system lacks, as
// "alloc: shared memory: not supported on darwin"; it wraps
// [errors.ErrUnsupported].
type unsupportedError string

func (e unsupportedError) Error() string {
	return "alloc: " + string(e) + ": not supported on " + runtime.GOOS
}

func (unsupportedError) Unwrap() error { return errors.ErrUnsupported }
