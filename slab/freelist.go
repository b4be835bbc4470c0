package slab

// span is a run of free pages: page index start, page count n. cached
// spans are committed, RW and (usually) populated, ready for reuse
// without a system call; the others are PROT_NONE with no memory behind
// them.
type span struct {
	start, n uintptr
	cached   bool
}

// freeList is an address-ordered list of free spans. Adjacent spans with
// the same cached flag are always merged, so the list stays short. The
// slice is reused, so steady-state operation does not allocate.
type freeList struct {
	spans []span
}

// take carves need pages from the best-fitting span with the given cached
// flag (smallest that fits; lowest address on ties), from its low end.
func (f *freeList) take(need uintptr, cached bool) (start uintptr, ok bool) {
	best := -1
	for i := range f.spans {
		sp := &f.spans[i]
		if sp.cached != cached || sp.n < need {
			continue
		}
		if best < 0 || sp.n < f.spans[best].n {
			best = i
			if sp.n == need {
				break
			}
		}
	}
	if best < 0 {
		return 0, false
	}
	sp := &f.spans[best]
	start = sp.start
	sp.start += need
	sp.n -= need
	if sp.n == 0 {
		f.spans = append(f.spans[:best], f.spans[best+1:]...)
	}
	return start, true
}

// insert adds [start, start+n) and merges it with equal-flag neighbours.
// The caller guarantees the pages are not already free.
func (f *freeList) insert(start, n uintptr, cached bool) {
	// First span with start > new start.
	lo, hi := 0, len(f.spans)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if f.spans[m].start < start {
			lo = m + 1
		} else {
			hi = m
		}
	}
	i := lo
	mergePrev := i > 0 && f.spans[i-1].cached == cached && f.spans[i-1].start+f.spans[i-1].n == start
	mergeNext := i < len(f.spans) && f.spans[i].cached == cached && start+n == f.spans[i].start
	switch {
	case mergePrev && mergeNext:
		f.spans[i-1].n += n + f.spans[i].n
		f.spans = append(f.spans[:i], f.spans[i+1:]...)
	case mergePrev:
		f.spans[i-1].n += n
	case mergeNext:
		f.spans[i].start = start
		f.spans[i].n += n
	default:
		f.spans = append(f.spans, span{})
		copy(f.spans[i+1:], f.spans[i:])
		f.spans[i] = span{start: start, n: n, cached: cached}
	}
}

// coalesce merges adjacent equal-flag spans (after flags were flipped).
func (f *freeList) coalesce() {
	out := f.spans[:0]
	for _, sp := range f.spans {
		if k := len(out); k > 0 && out[k-1].cached == sp.cached && out[k-1].start+out[k-1].n == sp.start {
			out[k-1].n += sp.n
			continue
		}
		out = append(out, sp)
	}
	f.spans = out
}

// freePages returns the total free page count.
func (f *freeList) freePages() (n uintptr) {
	for _, sp := range f.spans {
		n += sp.n
	}
	return n
}
