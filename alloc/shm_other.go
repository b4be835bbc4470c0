//go:build !linux

package alloc

import (
	"os"

	"github.com/orcgo/orcrt/internal/unsupported"
)

// createShm fails: the shared-memory mapper needs Linux's /dev/shm.
func createShm(path string) (*os.File, error) {
	return nil, unsupported.New("alloc", "shared memory")
}
