//go:build cgo

package perfjit

import (
	"errors"
	"fmt"
	"sync"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/service/dylib"
	"github.com/orcgo/orcrt/sps"
)

// The process symbols LLVM 19 and 22's PerfSupportPlugin looks up.
const (
	StartName = "llvm_orc_registerJITLoaderPerfStart"
	ImplName  = "llvm_orc_registerJITLoaderPerfImpl"
	EndName   = "llvm_orc_registerJITLoaderPerfEnd"
)

// ErrNotStarted is Impl's and End's error before Start (or after the
// last End).
var ErrNotStarted = errors.New("perfjit: perf support is not started (no llvm_orc_registerJITLoaderPerfStart)")

// Wrappers returns the three wrapper functions keyed by name.
func Wrappers() map[string]rt.WrapperFunc {
	return map[string]rt.WrapperFunc{
		StartName: rt.Handle0(sps.RegisterPerfStart, func(s *rt.Session) error { return start(s) }),
		EndName:   rt.Handle0(sps.RegisterPerfEnd, func(s *rt.Session) error { return end(s) }),
		ImplName: rt.Handle1(sps.RegisterPerfImpl, func(_ *rt.Session, b sps.PerfRecordBatch) error {
			return write(&b)
		}),
	}
}

// Install registers the wrappers on s and publishes them as process
// symbols of m, where the controller's lookup finds them.
func Install(s *rt.Session, m *dylib.Manager) error {
	for name, fn := range Wrappers() {
		if err := m.AddProcessSymbol(name, s.RegisterWrapper(fn, rt.BorrowArgs)); err != nil {
			return fmt.Errorf("perfjit: install: %w", err)
		}
	}
	return nil
}

// dump is the process's jitdump state.
var dump struct {
	mu       sync.Mutex
	sessions map[*rt.Session]int // Starts not yet ended, by Session
	w        *writer             // nil when no Session has started
}

// Path returns the jitdump file being written, or "" when perf support
// is not started.
func Path() string {
	dump.mu.Lock()
	defer dump.mu.Unlock()
	if dump.w == nil {
		return ""
	}
	return dump.w.path
}

func start(s *rt.Session) error {
	dump.mu.Lock()
	if dump.w == nil {
		w, err := create()
		if err != nil {
			dump.mu.Unlock()
			return err
		}
		dump.w = w
		dump.sessions = map[*rt.Session]int{}
	}
	first := dump.sessions[s] == 0
	dump.sessions[s]++
	dump.mu.Unlock()
	if first {
		// A controller that goes away without End leaves a file perf can
		// still read; its Session's end closes it. Outside dump.mu: a
		// Session already shutting down runs the callback at once.
		s.AddOnShutdown(func() { endAll(s) })
	}
	return nil
}

func end(s *rt.Session) error {
	dump.mu.Lock()
	defer dump.mu.Unlock()
	if dump.sessions[s] == 0 {
		return ErrNotStarted
	}
	dump.sessions[s]--
	if dump.sessions[s] == 0 {
		delete(dump.sessions, s)
	}
	return closeIfUnused()
}

func endAll(s *rt.Session) {
	dump.mu.Lock()
	defer dump.mu.Unlock()
	if dump.sessions[s] == 0 {
		return
	}
	delete(dump.sessions, s)
	_ = closeIfUnused()
}

// closeIfUnused closes the file once no Session holds it; dump.mu held.
func closeIfUnused() error {
	if len(dump.sessions) > 0 || dump.w == nil {
		return nil
	}
	err := dump.w.close()
	dump.w = nil
	return err
}

func write(b *sps.PerfRecordBatch) error {
	dump.mu.Lock()
	defer dump.mu.Unlock()
	if dump.w == nil {
		return ErrNotStarted
	}
	return dump.w.batch(b)
}
