package alloc

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/keepalive"
)

// The reservation lifecycle the memory manager and the shared-memory
// mapper share: an operation that runs actions enters the Session (its
// goroutine stays on its thread, as native actions may use thread-local
// state, and holds a keepalive token), counts itself in the reservation
// while actions run without the lock, and the last operation to end on a
// released reservation unmaps it.

// enter starts an operation op; end it with leave(&tok).
func enter(s *rt.Session, op string) (keepalive.Token, error) {
	runtime.LockOSThread()
	tok, err := s.AcquireKeepalive()
	if err != nil {
		runtime.UnlockOSThread()
		return tok, fmt.Errorf("alloc: %s: %w", op, err)
	}
	return tok, nil
}

// leave ends an operation started by enter.
func leave(tok *keepalive.Token) {
	tok.Release()
	runtime.UnlockOSThread()
}

// lifetime counts the operations running actions in a reservation.
type lifetime struct {
	inflight int
	dead     bool // released: unmap when the last operation ends
}

// beginOpLocked counts an operation in (the manager's lock held).
func (l *lifetime) beginOpLocked() { l.inflight++ }

// endOpLocked counts an operation out and reports whether the reservation
// must now be unmapped.
func (l *lifetime) endOpLocked() bool {
	l.inflight--
	return l.dead && l.inflight == 0
}

// endOp ends an operation on res (l its lifetime, mu the manager's lock)
// and, if res was released meanwhile and this was its last operation,
// unmaps it; unmap's error is appended to errs.
func endOp[R any](mu *sync.Mutex, l *lifetime, res R, unmap func(R) error, errs []error) []error {
	mu.Lock()
	last := l.endOpLocked()
	mu.Unlock()
	if last {
		if err := unmap(res); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
