package alloc

import (
	"errors"
	"sync"
)

// The reservation lifecycle the memory manager and the shared-memory
// mapper share: an operation that runs actions (an op) counts itself in
// the reservation while actions run without the lock, and the last
// operation to end on a released reservation unmaps it.

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

// opCounted is a reservation of either service: its embedded lifetime
// counts the operations in it.
type opCounted interface{ endOpLocked() bool }

// endOp ends an operation on res (mu the manager's lock) and, if res was
// released meanwhile and this was its last operation, unmaps it; unmap's
// error is appended to errs.
func endOp[R opCounted](mu *sync.Mutex, res R, unmap func(R) error, errs []error) []error {
	mu.Lock()
	last := res.endOpLocked()
	mu.Unlock()
	if last {
		if err := unmap(res); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// endOps ends a release call's op on every reservation in done, once
// every action of the call has returned (one reservation's deallocs may
// call code in another), and joins errs with the unmaps' errors.
func endOps[R opCounted](mu *sync.Mutex, done []R, unmap func(R) error, errs []error) error {
	for _, res := range done {
		errs = endOp(mu, res, unmap, errs)
	}
	return errors.Join(errs...)
}

// abandonOp ends an op on res that failed with err: under mu forget
// drops what the op claimed and the op is counted out; if res was
// released meanwhile and this was its last op, it is unmapped and
// unmap's error joined to err.
func abandonOp[R opCounted](mu *sync.Mutex, res R, unmap func(R) error, forget func(), err error) error {
	mu.Lock()
	forget()
	last := res.endOpLocked()
	mu.Unlock()
	if last {
		err = errors.Join(err, unmap(res))
	}
	return err
}

// markClosed sets *closed under mu, once: ok is false if it was set
// already, else v is what collect returned under the same hold of mu.
func markClosed[T any](mu *sync.Mutex, closed *bool, collect func() T) (v T, ok bool) {
	mu.Lock()
	defer mu.Unlock()
	if *closed {
		return v, false
	}
	*closed = true
	return collect(), true
}
