package alloc

import "sort"

// The bookkeeping of reservations and regions; m.mu is held.

func (m *MemoryManager) insertLocked(r *reservation) {
	i := sort.Search(len(m.res), func(i int) bool { return m.res[i].base >= r.base })
	m.res = append(m.res, nil)
	copy(m.res[i+1:], m.res[i:])
	m.res[i] = r
}

func (m *MemoryManager) removeLocked(r *reservation) {
	i := sort.Search(len(m.res), func(i int) bool { return m.res[i].base >= r.base })
	if i < len(m.res) && m.res[i] == r {
		m.res = append(m.res[:i], m.res[i+1:]...)
	}
}

func (m *MemoryManager) findExactLocked(base uint64) *reservation {
	i := sort.Search(len(m.res), func(i int) bool { return m.res[i].base >= base })
	if i < len(m.res) && m.res[i].base == base {
		return m.res[i]
	}
	return nil
}

// findLocked returns the reservation whose [base, base+size) contains
// [s, e) (LLVM's getSlabInfo(ExecutorAddrRange)); with point set, the one
// containing address s (getSlabInfo(ExecutorAddr)).
func (m *MemoryManager) findLocked(s, e uint64, point bool) *reservation {
	i := sort.Search(len(m.res), func(i int) bool { return m.res[i].base > s }) - 1
	if i < 0 {
		return nil
	}
	r := m.res[i]
	end := r.base + r.size
	if point {
		if s < end {
			return r
		}
		return nil
	}
	if r.base <= s && e <= end {
		return r
	}
	return nil
}

// overlapLocked checks rec against r's regions the way LLVM's
// createRegionInfo does: the region starting at or before rec.start, then
// the one after it. Unlike the stock, a region with the same start also
// counts as overlapping when either is empty (the stock would silently
// replace that record and lose its dealloc actions).
func (r *reservation) overlapLocked(rec span) error {
	i := sort.Search(len(r.regions), func(i int) bool { return r.regions[i].start > rec.start })
	if i > 0 {
		p := r.regions[i-1]
		ps := span{p.start, p.end}
		if ps.overlaps(rec) || p.start == rec.start {
			return errOverlap(rec.start, rec.end, p.start, p.end, true)
		}
	}
	if i < len(r.regions) {
		n := r.regions[i]
		if (span{n.start, n.end}).overlaps(rec) {
			return errOverlap(rec.start, rec.end, n.start, n.end, false)
		}
	}
	return nil
}

func (r *reservation) insertRegionLocked(g *region) {
	i := sort.Search(len(r.regions), func(i int) bool { return r.regions[i].start > g.start })
	r.regions = append(r.regions, nil)
	copy(r.regions[i+1:], r.regions[i:])
	r.regions[i] = g
}

func (r *reservation) removeRegionLocked(g *region) {
	for i, x := range r.regions {
		if x == g {
			r.regions = append(r.regions[:i], r.regions[i+1:]...)
			return
		}
	}
}

func (r *reservation) regionAtLocked(start uint64) *region {
	i := sort.Search(len(r.regions), func(i int) bool { return r.regions[i].start >= start })
	if i < len(r.regions) && r.regions[i].start == start && !r.regions[i].pending {
		return r.regions[i]
	}
	return nil
}
