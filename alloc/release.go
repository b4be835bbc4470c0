package alloc

import (
	"errors"
	"slices"
	"time"

	"github.com/orcgo/orcrt/rt/keepalive"
	"github.com/orcgo/orcrt/sps"
)

// Deinitialize runs the dealloc actions of the regions keyed by keys,
// processing keys from the last to the first (docs/protocol.md §5.1). Every key
// is processed; the failures are joined in processing order. As in the
// stock, the region record stays (a later overlapping initialize fails),
// protections are not reset and memory is not zeroed; a second
// deinitialize of the same key succeeds with nothing to run.
func (m *MemoryManager) Deinitialize(keys []sps.Addr) error {
	return withOp(m.s, "deinitialize", func(b *resultBuf) error { return m.deinitialize(b, keys) })
}

func (m *MemoryManager) deinitialize(b *resultBuf, keys []sps.Addr) error {
	var errs []error
	for i := len(keys) - 1; i >= 0; i-- {
		res, calls, pin, err := m.takeDeallocs(keys[i])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if pin != nil && !awaitPins([]*keepalive.Group{pin}, m.pinDeadline()) {
			errs = append(errs, &PinnedError{Op: "deinitialize", Addr: uint64(keys[i]), Wait: m.cfg.pinWait()})
			m.finishLater(res, calls, []*keepalive.Group{pin})
			continue
		}
		errs = runDealloc(m.s, b, calls, errs)
		errs = endOp(&m.mu, res, m.unmap, errs)
	}
	return errors.Join(errs...)
}

// takeDeallocs detaches the dealloc actions of the region keyed key, seals
// the region and begins an op on its reservation.
func (m *MemoryManager) takeDeallocs(key sps.Addr) (*reservation, []sps.WrapperCall, *keepalive.Group, error) {
	k := uint64(key)
	m.mu.Lock()
	defer m.mu.Unlock()
	res := m.findLocked(k, k, true)
	if res == nil {
		return nil, nil, nil, errDeinitNoSlab(k)
	}
	g := res.regionAtLocked(k)
	if g == nil {
		return nil, nil, nil, errDeinitNoRegion(k)
	}
	calls := g.dealloc
	g.dealloc = nil
	pin := g.sealLocked()
	res.beginOpLocked()
	return res, calls, pin, nil
}

// Release releases the reservations whose bases are given, processing
// bases from the last to the first (docs/protocol.md §5.1): for each, the
// dealloc actions of all its regions are collected (regions in ascending
// address order, each region's list in order) and run in reverse, then
// the memory goes back to the arena. Every base is processed; failures are
// joined in processing order. Release of no bases succeeds. Memory is
// given back only after every action of the call has returned, and never
// while another operation still runs actions in it.
func (m *MemoryManager) Release(bases []sps.Addr) error {
	return withOp(m.s, "release", func(b *resultBuf) error { return m.release(b, bases) })
}

func (m *MemoryManager) release(b *resultBuf, bases []sps.Addr) error {
	var errs []error
	var doneBuf [4]*reservation
	done := doneBuf[:0]
	var (
		calls    []sps.WrapperCall
		pins     []*keepalive.Group
		deadline time.Time
	)
	for i := len(bases) - 1; i >= 0; i-- {
		base := uint64(bases[i])
		m.mu.Lock()
		res := m.findExactLocked(base)
		if res == nil {
			m.mu.Unlock()
			errs = append(errs, errReleaseNoSlab(m.s.Dialect().ReleaseUnknownBase, base))
			continue
		}
		calls, pins = calls[:0], pins[:0]
		for _, g := range res.regions {
			if !g.pending {
				calls = append(calls, g.dealloc...)
			}
			if pin := g.sealLocked(); pin != nil {
				pins = append(pins, pin)
			}
		}
		m.removeLocked(res)
		m.dying = append(m.dying, res)
		res.dead = true
		res.beginOpLocked()
		m.mu.Unlock()

		if len(pins) > 0 {
			if deadline.IsZero() && m.cfg.pinWait() > 0 {
				deadline = m.pinDeadline() // one wait for the whole call
			}
			if !awaitPins(pins, deadline) {
				errs = append(errs, &PinnedError{Op: "release", Addr: base, Wait: m.cfg.pinWait()})
				m.finishLater(res, calls, slices.Clone(pins))
				continue
			}
		}
		errs = runDealloc(m.s, b, calls, errs)
		done = append(done, res)
	}
	return endOps(&m.mu, done, m.unmap, errs)
}
