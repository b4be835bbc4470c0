// Package unsupported is orcrt's one error for a feature the operating
// system or architecture lacks. Its values wrap [errors.ErrUnsupported].
package unsupported

import (
	"errors"
	"runtime"
)

// Error names the package and the feature: "alloc: shared memory: not
// supported on darwin/arm64".
type Error struct {
	Pkg, What string
}

func (e *Error) Error() string {
	return e.Pkg + ": " + e.What + ": not supported on " + runtime.GOOS + "/" + runtime.GOARCH
}

// Unwrap returns errors.ErrUnsupported.
func (e *Error) Unwrap() error { return errors.ErrUnsupported }

// New returns an *Error; keep it in a variable where callers match it.
func New(pkg, what string) error { return &Error{Pkg: pkg, What: what} }
