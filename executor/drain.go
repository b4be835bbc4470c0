//go:build cgo

package executor

import (
	"fmt"
	"time"
)

// DrainTimeoutError is Serve's result when calls into JIT'd code were
// still running Options.DrainTimeout after the connection had ended —
// typically a JIT'd main that never returns, whose controller was killed:
// nobody can receive its result any more. Serve returns without waiting
// for them; the Session shuts its services down when (if ever) the last
// of them returns, so memory that running code uses stays mapped. Close
// blocks until then. orcrt-executor exits on this error (status 1), as
// its process would otherwise outlive its controller for ever.
type DrainTimeoutError struct {
	After time.Duration
}

func (e *DrainTimeoutError) Error() string {
	return fmt.Sprintf("executor: calls into JIT'd code still running %v after the controller disconnected; not waiting for them", e.After)
}

// drain waits for the Session to shut down: for ever without a drain
// timeout, else for at most Options.DrainTimeout once disconnected is
// closed (the connection ended).
func (e *Executor) drain(disconnected <-chan struct{}) error {
	d := e.opts.DrainTimeout
	if d <= 0 {
		e.s.Wait()
		return nil
	}
	select {
	case <-e.s.Done():
		return nil
	case <-disconnected:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-e.s.Done():
		return nil
	case <-t.C:
		return &DrainTimeoutError{After: d}
	}
}
