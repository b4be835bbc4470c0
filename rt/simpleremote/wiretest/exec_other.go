//go:build !linux

package wiretest

import (
	"errors"
	"fmt"
	"os"
	"runtime"
)

func errUnsupported(what string) error {
	return fmt.Errorf("wiretest: %s: not supported on %s: %w", what, runtime.GOOS, errors.ErrUnsupported)
}

// socketPair fails: a shared descriptor (InFD == OutFD) is Linux only.
func socketPair() (child, ours *os.File, err error) {
	return nil, nil, errUnsupported("socketpair")
}

// shutdownWrite fails: see socketPair.
func shutdownWrite(fd uintptr) error { return errUnsupported("shutdown") }
