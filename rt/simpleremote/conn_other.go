//go:build !linux

package simpleremote

import (
	"errors"
	"runtime"
	"syscall"
)

// adoptFDs fails: adopting inherited descriptors (close-on-exec,
// non-blocking, the pipe size) is implemented for Linux only.
func adoptFDs(in, out int, inText, outText string) (*FileConn, error) {
	return nil, unsupportedError("adopting file descriptors")
}

// How shutdownFile shuts a socket down (unused here).
const (
	shutRD = iota
	shutWR
	shutRDWR
)

// shutdownFile does nothing here: Close only closes.
func shutdownFile(f syscall.Conn, how int) {}

// unsupportedError names a feature this operating system lacks, as
// "simpleremote: adopting file descriptors: not supported on darwin"; it
// wraps [errors.ErrUnsupported].
type unsupportedError string

func (e unsupportedError) Error() string {
	return "simpleremote: " + string(e) + ": not supported on " + runtime.GOOS
}

func (unsupportedError) Unwrap() error { return errors.ErrUnsupported }
