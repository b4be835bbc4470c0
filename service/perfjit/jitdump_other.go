//go:build !linux && cgo

package perfjit

import (
	"errors"
	"fmt"

	"github.com/orcgo/orcrt/sps"
)

// writer does nothing here: perf and its jitdump file are Linux's.
type writer struct{ path string }

func create() (*writer, error) {
	return nil, fmt.Errorf("perfjit: perf's jitdump file is written on Linux only: %w", errors.ErrUnsupported)
}

func (w *writer) batch(*sps.PerfRecordBatch) error { return ErrNotStarted }

func (w *writer) close() error { return nil }
