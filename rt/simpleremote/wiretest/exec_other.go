//go:build !linux

package wiretest

import (
	"os"

	"github.com/orcgo/orcrt/internal/unsupported"
)

func errUnsupported(what string) error { return unsupported.New("wiretest", what) }

// socketPair fails: a shared descriptor (InFD == OutFD) is Linux only.
func socketPair() (child, ours *os.File, err error) {
	return nil, nil, errUnsupported("socketpair")
}

// shutdownWrite fails: see socketPair.
func shutdownWrite(fd uintptr) error { return errUnsupported("shutdown") }
