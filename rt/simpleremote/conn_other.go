//go:build !linux

package simpleremote

import (
	"syscall"
	"time"

	"github.com/orcgo/orcrt/internal/unsupported"
)

// adoptFDs fails: adopting inherited descriptors (close-on-exec,
// non-blocking, the pipe size) is implemented for Linux only.
func adoptFDs(in, out int, inText, outText string) (*FileConn, error) {
	return nil, unsupported.New("simpleremote", "adopting file descriptors")
}

// How shutdownFile shuts a socket down (unused here).
const (
	shutRD = iota
	shutWR
	shutRDWR
)

// shutdownFile does nothing here: Close only closes.
func shutdownFile(f syscall.Conn, how int) {}

// quickAcker does nothing here: TCP_QUICKACK is Linux's.
type quickAcker struct{}

func (*quickAcker) init(syscall.Conn) error { return nil }
func (*quickAcker) rearm()                  {}

// readSpinner never polls here: reads park in Go's poller at once.
type readSpinner struct{}

func (*readSpinner) init(syscall.RawConn)           {}
func (*readSpinner) set(time.Duration)              {}
func (*readSpinner) read([]byte) (int, error, bool) { return 0, nil, false }
