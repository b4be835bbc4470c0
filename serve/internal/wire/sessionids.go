//go:build cgo && linux

package wire

import (
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// MapCounter maps the session counter the server shares (a memfd, IDsFD
// in a worker) and closes fd: a worker takes the next session id from
// it when it accepts a connection, so ids follow the order of acceptance
// whoever accepts.
func MapCounter(fd int) (ctr *uint64, unmap func(), err error) {
	mem, err := unix.Mmap(fd, 0, 8, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	_ = unix.Close(fd)
	if err != nil {
		return nil, nil, fmt.Errorf("session counter: %w", err)
	}
	return (*uint64)(unsafe.Pointer(&mem[0])), sync.OnceFunc(func() { _ = unix.Munmap(mem) }), nil
}
