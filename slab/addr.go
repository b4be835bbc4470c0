package slab

import "sort"

func (s *Slab) pageIndex(addr uintptr) uintptr { return (addr - s.base) >> s.pageShift }
func (s *Slab) pageAddr(i uintptr) uintptr     { return s.base + i<<s.pageShift }

// pageSpan returns the page indexes [lo, hi) covering [addr, addr+n), or
// ok=false if the range is empty, overflows or leaves the arena.
func (s *Slab) pageSpan(addr, n uintptr) (lo, hi uintptr, ok bool) {
	if n == 0 || addr < s.base || addr+n < addr || addr+n > s.base+s.size {
		return 0, 0, false
	}
	lo = (addr - s.base) >> s.pageShift
	hi = (addr - s.base + n + s.pageSize - 1) >> s.pageShift
	return lo, hi, true
}

// findLocked returns the live region containing [addr, addr+n).
func (s *Slab) findLocked(addr, n uintptr) *region {
	if n == 0 {
		n = 1
	}
	if addr+n < addr {
		return nil
	}
	i := sort.Search(len(s.regions), func(i int) bool { return s.regions[i].base > addr }) - 1
	if i < 0 {
		return nil
	}
	r := s.regions[i]
	if addr+n > r.base+r.size {
		return nil
	}
	return r
}

// checkHandleLocked validates a Region handle.
func (s *Slab) checkHandleLocked(op string, h Region) (*region, error) {
	switch {
	case h.rec == nil:
		return nil, opErr(op, h.base, h.size, ErrForeign)
	case h.rec.s != s:
		return nil, opErr(op, h.base, h.size, ErrForeign)
	case !h.rec.live || h.rec.gen != h.gen:
		return nil, opErr(op, h.base, h.size, ErrDoubleFree)
	}
	return h.rec, nil
}

func (s *Slab) handle(r *region) Region {
	return Region{base: r.base, size: r.size, rec: r, gen: r.gen}
}

// Lookup returns the live region containing all of [addr, addr+n)
// (n == 0 is treated as 1).
func (s *Slab) Lookup(addr, n uintptr) (Region, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Region{}, false
	}
	r := s.findLocked(addr, n)
	if r == nil {
		return Region{}, false
	}
	return s.handle(r), true
}

// Contains reports whether h is a live region of this slab.
func (s *Slab) Contains(h Region) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.checkHandleLocked("contains", h)
	return err == nil && !s.closed
}
