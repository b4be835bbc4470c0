//go:build !(cgo && linux)

package worker

import (
	"errors"
	"fmt"
	"os"

	"github.com/orcgo/orcrt/executor"
)

// RunWorker reports that serve needs Linux and cgo, and returns 1.
func RunWorker(argv0 string, _ []string, _ executor.Logger) int {
	fmt.Fprintf(os.Stderr, "%s: serve worker: serve needs Linux and cgo: %v\n", argv0, errors.ErrUnsupported)
	return 1
}

// MaybeRunWorker returns unless the process is a serve worker, which
// it ends with status 1: serve needs Linux and cgo.
func MaybeRunWorker(trace executor.Logger) {
	if len(os.Args) > 1 && os.Args[1] == WorkerArg {
		os.Exit(RunWorker(os.Args[0], os.Args[2:], trace))
	}
}
