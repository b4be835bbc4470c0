//go:build !linux

package alloc

import "os"

// createShm fails: the shared-memory mapper needs Linux's /dev/shm.
func createShm(path string) (*os.File, error) {
	return nil, unsupportedError("shared memory")
}
