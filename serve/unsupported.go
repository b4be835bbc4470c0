//go:build !(cgo && linux)

package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/orcgo/orcrt/executor"
)

// errUnsupported is every call's error where serve does not run.
var errUnsupported = fmt.Errorf("serve: needs Linux and cgo: %w", errors.ErrUnsupported)

// Run fails: serve needs Linux and cgo.
func Run(context.Context, Config) error { return errUnsupported }

// ReadStatus fails: serve needs Linux and cgo.
func ReadStatus(io.Writer, string) error { return errUnsupported }

// RunWorker reports that serve needs Linux and cgo, and returns 1.
func RunWorker(argv0 string, _ []string, _ executor.Logger) int {
	fmt.Fprintf(os.Stderr, "%s: serve worker: %v\n", argv0, errUnsupported)
	return 1
}

// MaybeRunWorker returns unless the process is a serve worker, which
// it ends with status 1: serve needs Linux and cgo.
func MaybeRunWorker(trace executor.Logger) {
	if len(os.Args) > 1 && os.Args[1] == WorkerArg {
		os.Exit(RunWorker(os.Args[0], os.Args[2:], trace))
	}
}
