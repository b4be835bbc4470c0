//go:build cgo

package executor

import (
	"context"
	"fmt"
	"time"
)

// DefaultDrainTimeout is the drain timeout of Options.DrainTimeout 0, the
// same as orcrt-executor's: a host whose controller died, or whose ctx
// was cancelled, while JIT'd code is blocked must still end.
const DefaultDrainTimeout = 10 * time.Second

// DrainTimeoutError is Serve's result when calls into JIT'd code were
// still running Options.DrainTimeout after the session had ended — the
// connection ended (typically a JIT'd main that never returns, whose
// controller was killed: nobody can receive its result any more) or
// Serve's ctx was done (a host's SIGTERM). Serve returns without waiting
// for them; the Session shuts its services down when (if ever) the last
// of them returns, so memory that running code uses stays mapped. Close
// blocks until then: a host that gets this error should exit without
// calling Close (the stuck threads end with the process). orcrt-executor
// exits on this error (status 1), as its process would otherwise outlive
// its controller for ever.
type DrainTimeoutError struct {
	After time.Duration
	// Ctx is context.Cause of Serve's ctx when its end (not the
	// connection's) started the drain; nil otherwise.
	Ctx error
}

func (e *DrainTimeoutError) Error() string {
	if e.Ctx != nil {
		return fmt.Sprintf("executor: calls into JIT'd code still running %v after the session was cancelled (%v); not waiting for them", e.After, e.Ctx)
	}
	return fmt.Sprintf("executor: calls into JIT'd code still running %v after the controller disconnected; not waiting for them", e.After)
}

// Unwrap returns Ctx, so errors.Is(err, context.Canceled) holds for a
// cancelled Serve.
func (e *DrainTimeoutError) Unwrap() error { return e.Ctx }

// drain waits for the Session to shut down: for ever with a negative
// drain timeout, else for at most the drain timeout once the session has
// ended — disconnected is closed (the connection ended) or ctx is done.
// Both start the clock: a cancelled ctx disconnects only after the
// Hangup is written, which a controller that does not read delays by up
// to the wire's HangupTimeout.
func (e *Executor) drain(ctx context.Context, disconnected <-chan struct{}) error {
	d := e.opts.DrainTimeout
	if d < 0 {
		e.s.Wait()
		return nil
	}
	if d == 0 {
		d = DefaultDrainTimeout
	}
	select {
	case <-e.s.Done():
		return nil
	case <-disconnected:
	case <-ctx.Done():
	}
	var cause error
	if ctx.Err() != nil { // both may be ready: a done ctx is named
		cause = context.Cause(ctx)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-e.s.Done():
		return nil
	case <-t.C:
		return &DrainTimeoutError{After: d, Ctx: cause}
	}
}
