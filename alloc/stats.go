package alloc

import "github.com/orcgo/orcrt/slab"

// Stats describes a MemoryManager's state.
type Stats struct {
	Reservations int    // live reservations
	Regions      int    // region records (initialized, including deinitialized ones the stock keeps)
	Arenas       int    // live arenas (shared and dedicated)
	DroppedPages uint64 // finalize-lifetime pages given back so far
	Slab         slab.Stats
}

// Stats returns a snapshot. Slab sums the counters of the live arenas, so
// tests can assert the system calls an operation made (for example, one
// mprotect per non-read-write segment at initialize).
func (m *MemoryManager) Stats() Stats {
	var st Stats
	arenas := append([]*slab.Slab(nil), *m.arenas.Load()...)
	m.mu.Lock()
	st.Reservations = len(m.res)
	for _, r := range m.res {
		for _, g := range r.regions {
			if !g.pending {
				st.Regions++
			}
		}
		if r.own {
			arenas = append(arenas, r.arena)
		}
	}
	m.mu.Unlock()
	st.Arenas = len(arenas)
	st.DroppedPages = m.dropped.Load()
	for _, a := range arenas {
		addStats(&st.Slab, a.Stats())
	}
	return st
}

func addStats(d *slab.Stats, s slab.Stats) {
	d.Reserves += s.Reserves
	d.Releases += s.Releases
	d.CacheHits += s.CacheHits
	d.Protects += s.Protects
	d.Madvises += s.Madvises
	d.Maps += s.Maps
	d.Unmaps += s.Unmaps
	d.Populates += s.Populates
	d.Touches += s.Touches
	d.Decommits += s.Decommits
	d.Flushes += s.Flushes
	d.LiveRegions += s.LiveRegions
	d.LiveBytes += s.LiveBytes
	d.CachedBytes += s.CachedBytes
	d.FreeBytes += s.FreeBytes
}
