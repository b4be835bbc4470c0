//go:build !(cgo && linux)

package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// errUnsupported is every call's error where serve does not run.
var errUnsupported = fmt.Errorf("serve: needs Linux and cgo: %w", errors.ErrUnsupported)

// Run fails: serve needs Linux and cgo.
func Run(context.Context, Config) error { return errUnsupported }

// ReadStatus fails: serve needs Linux and cgo.
func ReadStatus(io.Writer, string) error { return errUnsupported }
