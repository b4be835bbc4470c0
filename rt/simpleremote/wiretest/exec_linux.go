package wiretest

import (
	"fmt"
	"os"
	"syscall"
)

// socketPair returns the two ends of a Unix-domain stream socketpair,
// both close-on-exec: the child's, and ours, which is non-blocking
// (pollable: Close wakes a reader).
func socketPair() (child, ours *os.File, err error) {
	syscall.ForkLock.RLock() // no fork may inherit them before CloseOnExec
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, fmt.Errorf("wiretest: socketpair: %w", err)
	}
	if err := syscall.SetNonblock(fds[1], true); err != nil {
		_, _ = syscall.Close(fds[0]), syscall.Close(fds[1])
		return nil, nil, fmt.Errorf("wiretest: socketpair: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "executor-sock"), os.NewFile(uintptr(fds[1]), "controller-sock"), nil
}

// shutdownWrite is shutdown(fd, SHUT_WR).
func shutdownWrite(fd uintptr) error { return syscall.Shutdown(int(fd), syscall.SHUT_WR) }
