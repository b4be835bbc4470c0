//go:build cgo && linux

package worker

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/orcgo/orcrt/rt"
)

// idleWatch tracks a session's traffic and its calls in flight, for the
// idle timeout: a session is idle when the controller has sent nothing
// for the timeout and no call of its runs (a long JIT'd main is busy, not
// idle). As the Dispatcher it runs each call on its own goroutine, as
// the stock executor's thread per call.
type idleWatch struct {
	last atomic.Int64 // unix nanoseconds of the last read or call end
	busy atomic.Int64 // calls in flight
}

func (a *idleWatch) touch() { a.last.Store(time.Now().UnixNano()) }

// Dispatch runs t, counting it in flight.
func (a *idleWatch) Dispatch(t *rt.Task) {
	a.busy.Add(1)
	go func() {
		defer a.touch()
		defer a.busy.Add(-1)
		t.Run()
	}()
}

// watch calls idle once the session has been idle for d, or returns when
// ctx ends.
func (a *idleWatch) watch(ctx context.Context, d time.Duration, idle func()) {
	tick := time.NewTicker(min(d/4, time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if a.busy.Load() == 0 && time.Since(time.Unix(0, a.last.Load())) >= d {
			idle()
			return
		}
	}
}
