package alloc

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/orcgo/orcrt/rt/keepalive"
	"github.com/orcgo/orcrt/sps"
)

// Pins: the Go host's calls into JIT'd code hold a token of the pin of the
// initialized region holding the code. Deinitialize and release seal the
// region (later Pin calls fail), close its pin (later calls fail) and wait
// for the tokens in flight before they run dealloc actions or unmap.

// DefaultPinWait is how long a release or deinitialize waits for Go calls
// into the code it frees when Config.PinWait is 0.
const DefaultPinWait = 10 * time.Second

// ErrNotAllocated is returned by Pin for an address outside every
// initialized region: host code, shared memory, or memory still being
// initialized.
var ErrNotAllocated = errors.New("alloc: address is not in initialized JIT'd memory")

// ErrUnpinnable is returned (wrapped) by Pin for code whose region is
// being, or has been, deinitialized or released.
var ErrUnpinnable = errors.New("alloc: the code's memory is being released")

// PinnedError is the error a release or deinitialize answers when Go calls
// into the code were still running PinWait after it began. The dealloc
// actions run, and the memory is unmapped, once the last of them returns.
type PinnedError struct {
	Op   string // "release" or "deinitialize"
	Addr uint64
	Wait time.Duration
}

func (e *PinnedError) Error() string {
	return fmt.Sprintf("alloc: %s of %#x: Go calls into its code still running after %v; it completes when they return", e.Op, e.Addr, e.Wait)
}

func (c Config) pinWait() time.Duration {
	if c.PinWait == 0 {
		return DefaultPinWait
	}
	return c.PinWait
}

// Pin returns the keepalive group pinning the initialized region that
// holds addr, created on first use. A token of it keeps the region's
// dealloc actions and unmapping waiting; Acquire fails once the controller
// has begun to deinitialize or release it.
func (m *MemoryManager) Pin(addr sps.Addr) (*keepalive.Group, error) {
	a := uint64(addr)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("alloc: pin %#x: %w", a, ErrClosed)
	}
	res := m.findLocked(a, a, true)
	if res == nil {
		if m.jitAddrLocked(a) {
			return nil, fmt.Errorf("alloc: pin %#x: %w", a, ErrUnpinnable)
		}
		return nil, ErrNotAllocated
	}
	g := res.regionContainingLocked(a)
	switch {
	case g == nil || g.pending:
		return nil, ErrNotAllocated
	case g.sealed:
		return nil, fmt.Errorf("alloc: pin %#x: %w", a, ErrUnpinnable)
	}
	if g.pin == nil {
		g.pin = keepalive.New()
	}
	return g.pin, nil
}

// jitAddrLocked reports whether a lies in memory the manager hands out
// (a shared arena, or a reservation not yet unmapped), where no region is
// live: code there is gone, or not yet initialized.
func (m *MemoryManager) jitAddrLocked(a uint64) bool {
	for _, r := range m.dying {
		if r.base <= a && a < r.base+r.size {
			return true
		}
	}
	for _, s := range *m.arenas.Load() {
		if base, size := s.Arena(); uint64(base) <= a && a < uint64(base+size) {
			return true
		}
	}
	return false
}

// regionContainingLocked returns the region with start <= a < end.
func (r *reservation) regionContainingLocked(a uint64) *region {
	i := sort.Search(len(r.regions), func(i int) bool { return r.regions[i].start > a }) - 1
	if i >= 0 && a < r.regions[i].end {
		return r.regions[i]
	}
	return nil
}

// sealLocked refuses later pins of g and returns its pin, closed, or nil.
func (g *region) sealLocked() *keepalive.Group {
	g.sealed = true
	if g.pin != nil {
		g.pin.Close()
	}
	return g.pin
}

// awaitPins waits until every pin has completed, or until deadline (the
// zero time: for ever); it reports whether they all did.
func awaitPins(pins []*keepalive.Group, deadline time.Time) bool {
	for _, p := range pins {
		if p.Completed() {
			continue
		}
		done := make(chan struct{})
		p.AddOnComplete(func() { close(done) })
		if deadline.IsZero() {
			<-done
			continue
		}
		t := time.NewTimer(time.Until(deadline))
		select {
		case <-done:
			t.Stop()
		case <-t.C:
			return false
		}
	}
	return true
}

// pinDeadline is the deadline of a wait for pins starting now.
func (m *MemoryManager) pinDeadline() time.Time {
	if d := m.cfg.pinWait(); d > 0 {
		return time.Now().Add(d)
	}
	return time.Time{}
}

// finishLater runs calls (dealloc actions, reversed) and then ends the
// operation on res once every pin has completed, on a goroutine of its
// own: a release or deinitialize whose wait for Go calls timed out.
func (m *MemoryManager) finishLater(res *reservation, calls []sps.WrapperCall, pins []*keepalive.Group) {
	calls = copyCalls(calls)
	m.later.Add(1)
	go func() {
		defer m.later.Done()
		awaitPins(pins, time.Time{})
		// Without a token: the op that began the release has ended.
		err := withOp(nil, "", func(b *resultBuf) error {
			errs := runDealloc(m.s, b, calls, nil)
			return errors.Join(endOp(&m.mu, res, m.unmap, errs)...)
		})
		if err != nil {
			m.s.ReportError(fmt.Errorf("alloc: finishing a release delayed by Go calls: %w", err))
		}
	}()
}
