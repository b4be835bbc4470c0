package slab

// The exec bitmap has a bit per arena page: executable and handed out.
// It is written under Slab.mu and read without a lock, so IsExecutable
// and ExecutableAt never block.

// bitRun returns the bitmap word of page i, the mask of the pages from i
// to hi in it, and how many pages that is.
func bitRun(i, hi uintptr) (w uintptr, mask uint64, n uintptr) {
	w, b := i/64, i%64
	n = min(64-b, hi-i)
	mask = ^uint64(0)
	if n < 64 {
		mask = (uint64(1)<<n - 1) << b
	}
	return w, mask, n
}

func (s *Slab) setExecBits(lo, hi uintptr, on bool) {
	for i := lo; i < hi; {
		w, mask, n := bitRun(i, hi)
		if on {
			s.execWords = max(s.execWords, w+1)
			s.execBits[w].Or(mask)
		} else {
			s.execBits[w].And(^mask)
		}
		i += n
	}
}

// IsExecutable reports, without a system call or lock, whether every byte
// of [addr, addr+n) (n == 0 counts as 1) is in pages this slab handed out
// that are executable now. The answer is a per-page snapshot; callers
// that jump to addr must keep the region alive by other means.
func (s *Slab) IsExecutable(addr, n uintptr) bool {
	if n == 0 {
		n = 1
	}
	lo, hi, ok := s.pageSpan(addr, n)
	if !ok {
		return false
	}
	for i := lo; i < hi; {
		w, mask, k := bitRun(i, hi)
		if s.execBits[w].Load()&mask != mask {
			return false
		}
		i += k
	}
	return true
}
