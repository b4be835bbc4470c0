package slab

// Stats is a snapshot of a slab's counters. The system-call counters let
// tests assert exactly how many protection changes an operation made.
type Stats struct {
	Reserves, Releases uint64 // regions handed out / taken back
	CacheHits          uint64 // reservations served from released, still committed memory
	Protects           uint64 // mprotect calls plus MAP_FIXED re-maps that change protection
	Madvises           uint64 // madvise calls (populate, decommit)
	Maps, Unmaps       uint64 // mmap / munmap calls for the arena itself
	Populates          uint64 // MADV_POPULATE_WRITE calls
	Touches            uint64 // pages pre-faulted by touching
	Decommits          uint64 // spans whose memory was returned to the kernel
	Flushes            uint64 // instruction-cache flushes (FlushICache calls)

	LiveRegions int     // regions currently handed out
	LiveBytes   uintptr // bytes in live regions
	CachedBytes uintptr // released bytes kept committed for reuse
	FreeBytes   uintptr // free bytes (cached included)
}

// Stats returns a snapshot of the counters.
func (s *Slab) Stats() Stats {
	s.mu.Lock()
	live, liveP, cachedP, freeP := len(s.regions), s.livePages, s.cachedPages, s.free.freePages()
	s.mu.Unlock()
	return Stats{
		Reserves:    s.st.reserves.Load(),
		Releases:    s.st.releases.Load(),
		CacheHits:   s.st.cacheHits.Load(),
		Protects:    s.st.protects.Load(),
		Madvises:    s.st.madvises.Load(),
		Maps:        s.st.maps.Load(),
		Unmaps:      s.st.unmaps.Load(),
		Populates:   s.st.populates.Load(),
		Touches:     s.st.touches.Load(),
		Decommits:   s.st.decommits.Load(),
		Flushes:     s.st.flushs.Load(),
		LiveRegions: live,
		LiveBytes:   liveP << s.pageShift,
		CachedBytes: cachedP << s.pageShift,
		FreeBytes:   freeP << s.pageShift,
	}
}
