package alloc

import (
	"os"
	"syscall"
)

// createShm creates the shared-memory object at path as glibc's shm_open
// with O_RDWR|O_CREAT|O_EXCL does (never following a symbolic link).
func createShm(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o700)
}
