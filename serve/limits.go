//go:build cgo && linux

package serve

import (
	"fmt"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// workerLimits is what the server passes a worker on its command line.
type workerLimits struct {
	as   uint64        // RLIMIT_AS in bytes (0: unlimited)
	cpu  time.Duration // RLIMIT_CPU (0: unlimited)
	idle time.Duration // end the session after this long without traffic (0: never)
}

func (l workerLimits) args() []string {
	return []string{WorkerArg,
		"-as=" + strconv.FormatUint(l.as, 10),
		"-cpu=" + l.cpu.String(),
		"-idle=" + l.idle.String()}
}

// apply sets the session's resource limits on this process.
func (l workerLimits) apply() error {
	if l.as > 0 {
		if err := unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: l.as, Max: l.as}); err != nil {
			return fmt.Errorf("RLIMIT_AS: %w", err)
		}
	}
	if l.cpu > 0 {
		// The soft limit's SIGXCPU is reported, then the worker kills
		// itself; the hard limit a second later is the backstop.
		sec := uint64((l.cpu + time.Second - 1) / time.Second)
		if err := unix.Setrlimit(unix.RLIMIT_CPU, &unix.Rlimit{Cur: sec, Max: sec + 1}); err != nil {
			return fmt.Errorf("RLIMIT_CPU: %w", err)
		}
	}
	return nil
}
