//go:build cgo

// Package prepare makes the process ready for JIT'd code once, in the
// background, and holds incoming calls until it is (executor.PrepareProcess).
package prepare

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/service/ehframe"
)

var (
	once    sync.Once
	prepErr error

	// Background preparation: done is closed when Process has finished;
	// fast is its lock-free mirror for the dispatch fast path.
	startOnce sync.Once
	done      = make(chan struct{})
	fast      atomic.Bool
)

// Process loads libs RTLD_NOW|RTLD_GLOBAL and initializes the EH-frame
// registration, once per process.
func Process(libs []string) error {
	once.Do(func() {
		var errs []error
		for _, lib := range libs {
			if _, err := native.Dlopen(lib, native.RTLD_NOW|native.RTLD_GLOBAL); err != nil {
				errs = append(errs, err)
			}
		}
		if err := ehframe.Init(); err != nil {
			errs = append(errs, err)
		}
		if len(errs) > 0 {
			prepErr = fmt.Errorf("executor: preparing the process: %w", errors.Join(errs...))
		}
	})
	return prepErr
}

// Start runs prepare once, in the background.
func Start(prepare func() error) {
	startOnce.Do(func() {
		go func() {
			_ = prepare()
			fast.Store(true)
			close(done)
		}()
	})
}

// Wait waits until the background preparation has finished.
func Wait() { <-done }

// Gate is the Session's Dispatcher: tasks go to Next once the process is
// prepared; until then each one first waits (on its own goroutine, so the
// connection's reader never blocks) for the preparation, which Start
// starts. Every incoming call may need the libraries: symbol lookups
// through the process handle, JIT'd C++ code, the unwinder's
// __register_frame. A failure goes to Report.
type Gate struct {
	Next   rt.Dispatcher
	Start  func()
	Report func(error)
}

func (g *Gate) Dispatch(t *rt.Task) {
	if fast.Load() {
		g.Next.Dispatch(t)
		return
	}
	g.Start()
	g.Next.Dispatch(rt.NewTask(func() {
		<-done
		if prepErr != nil {
			g.Report(prepErr)
		}
		t.Run()
	}))
}
