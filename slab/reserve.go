package slab

import (
	"errors"
	"fmt"
	"sort"
)

// Reserve hands out a read-write region of at least size bytes (rounded
// up to pages) with at most one system call. Contents are unspecified
// (recycled pages keep old bytes; Write zero-fills). Errors wrap
// [ErrBadSize], [ErrNoSpace] or [ErrClosed].
func (s *Slab) Reserve(size uintptr) (Region, error) {
	if size == 0 {
		return Region{}, opErr("reserve", 0, size, ErrBadSize)
	}
	if size > s.size {
		return Region{}, opErr("reserve", 0, size, fmt.Errorf("%w: request larger than the %#x-byte arena", ErrNoSpace, s.size))
	}
	n := (size + s.pageSize - 1) >> s.pageShift
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Region{}, opErr("reserve", 0, size, ErrClosed)
	}
	r, err := s.reserveLocked(n)
	if err != nil {
		return Region{}, opErr("reserve", 0, size, err)
	}
	return s.handle(r), nil
}

func (s *Slab) reserveLocked(n uintptr) (*region, error) {
	start, ok := s.free.take(n, true)
	if ok {
		s.cachedPages -= n
		s.st.cacheHits.Add(1)
	} else {
		start, ok = s.free.take(n, false)
		if !ok && s.cachedPages > 0 {
			if err := s.decommitCachedLocked(); err != nil {
				return nil, err
			}
			start, ok = s.free.take(n, false)
		}
		if !ok {
			return nil, fmt.Errorf("%w (%d pages wanted, %d free)", ErrNoSpace, n, s.free.freePages())
		}
		if err := s.protectRaw(start, start+n, ProtRW); err != nil {
			s.free.insert(start, n, false)
			return nil, err
		}
	}
	var r *region
	if k := len(s.pool); k > 0 {
		r = s.pool[k-1]
		s.pool = s.pool[:k-1]
	} else {
		r = &region{s: s}
	}
	s.nextGen++
	r.base, r.size, r.gen, r.live, r.writers, r.pk = s.pageAddr(start), n<<s.pageShift, s.nextGen, true, 0, nil
	i := sort.Search(len(s.regions), func(i int) bool { return s.regions[i].base > r.base })
	s.regions = append(s.regions, nil)
	copy(s.regions[i+1:], s.regions[i:])
	s.regions[i] = r
	s.livePages += n
	s.st.reserves.Add(1)
	return r, nil
}

// Release takes a region back: its pages stop being executable at once
// and are cached read-write or decommitted. Errors wrap [ErrDoubleFree],
// [ErrForeign] or [ErrBusy] (a Write in flight); after a failed system
// call the region is still released.
func (s *Slab) Release(h Region) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return opErr("release", h.base, h.size, ErrClosed)
	}
	r, err := s.checkHandleLocked("release", h)
	if err != nil {
		return err
	}
	if r.pk != nil {
		return opErr("release", h.base, h.size, fmt.Errorf("%w: region belongs to a Packer (free its blocks)", ErrForeign))
	}
	if r.writers > 0 {
		return opErr("release", h.base, h.size, ErrBusy)
	}
	if err := s.releaseLocked(r); err != nil {
		return opErr("release", h.base, h.size, err)
	}
	return nil
}

// ReleaseAt releases the live region whose base is exactly base (the
// address-keyed form the LLVM memory manager needs).
func (s *Slab) ReleaseAt(base uintptr) error {
	s.mu.Lock()
	r := s.findLocked(base, 1)
	s.mu.Unlock()
	if r == nil || r.base != base {
		return opErr("release", base, 0, fmt.Errorf("%w: no live region starts here", ErrNotMapped))
	}
	return s.Release(s.handle(r))
}

func (s *Slab) releaseLocked(r *region) error {
	lo, hi := s.pageIndex(r.base), s.pageIndex(r.base+r.size)
	i := sort.Search(len(s.regions), func(i int) bool { return s.regions[i].base >= r.base })
	s.regions = append(s.regions[:i], s.regions[i+1:]...)
	s.setExecBits(lo, hi, false)
	n := hi - lo
	s.livePages -= n
	var err error
	cached := false
	if s.cachedPages+n <= s.maxCachedPages {
		if !s.allProtLocked(lo, hi, ProtRW) {
			err = s.protectRaw(lo, hi, ProtRW)
		}
		cached = err == nil
	}
	if !cached {
		if err2 := s.decommitRaw(lo, hi); err2 != nil {
			err = errors.Join(err, err2)
		}
	}
	s.free.insert(lo, n, cached)
	if cached {
		s.cachedPages += n
	}
	r.live = false
	r.pk = nil
	s.pool = append(s.pool, r)
	s.st.releases.Add(1)
	return err
}
