//go:build cgo && linux

package worker

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/serve/internal/wire"
)

// applyRlimits sets the session's resource limits (a.RlimitAS,
// a.RlimitCPU) on this process.
func applyRlimits(a wire.Args) error {
	if a.RlimitAS > 0 {
		if err := unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: a.RlimitAS, Max: a.RlimitAS}); err != nil {
			return fmt.Errorf("RLIMIT_AS: %w", err)
		}
	}
	if a.RlimitCPU > 0 {
		// The soft limit's SIGXCPU is reported, then the worker kills
		// itself; the hard limit a second later is the backstop.
		sec := uint64((a.RlimitCPU + time.Second - 1) / time.Second)
		if err := unix.Setrlimit(unix.RLIMIT_CPU, &unix.Rlimit{Cur: sec, Max: sec + 1}); err != nil {
			return fmt.Errorf("RLIMIT_CPU: %w", err)
		}
	}
	return nil
}
