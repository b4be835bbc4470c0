package slab

import (
	"errors"
	"fmt"

	"github.com/orcgo/orcrt/arch"
	"github.com/orcgo/orcrt/internal/sysmem"
)

// Raw transitions change the kernel's protection of a page span and the
// page-state model together; the caller holds Slab.mu.

// protectRaw sets pages [lo, hi) to p with exactly one system call and
// updates the model; it flushes the instruction cache when p includes
// execute. On failure the pages are marked uncertain (Write refuses them,
// IsExecutable reports false) until a later transition succeeds.
func (s *Slab) protectRaw(lo, hi uintptr, p Prot) error {
	addr, n := s.pageAddr(lo), (hi-lo)<<s.pageShift
	if p&ProtExec == 0 {
		s.setExecBits(lo, hi, false)
	}
	var err error
	if s.dual && p&ProtExec != 0 {
		// Never mprotect the executable view to X: map the file again.
		_, err = sysmem.Mmap(addr, n, int(p), sysmem.MapShared|sysmem.MapFixed, s.fd, int64(addr-s.base))
		if err != nil {
			// An old kernel may have unmapped the range before failing; cover
			// it again so no other mapping can land there.
			if _, err2 := sysmem.Mmap(addr, n, sysmem.ProtNone, sysmem.MapShared|sysmem.MapFixed, s.fd, int64(addr-s.base)); err2 != nil {
				err = errors.Join(err, fmt.Errorf("re-covering range: %w", err2))
			}
		}
	} else {
		err = sysmem.Mprotect(addr, n, int(p))
	}
	s.st.protects.Add(1)
	if err != nil {
		s.setExecBits(lo, hi, false)
		for i := lo; i < hi; i++ {
			s.pages[i] |= psUnknown
		}
		return err
	}
	for i := lo; i < hi; i++ {
		s.pages[i] = s.pages[i]&psPopulated | uint8(p)
	}
	if p&ProtExec != 0 {
		arch.FlushICache(addr, n)
		s.st.flushs.Add(1)
		s.setExecBits(lo, hi, true)
		if s.syncCores {
			return arch.SyncCores()
		}
	}
	return nil
}

// decommitRaw returns the memory of pages [lo, hi) to the kernel and makes
// them PROT_NONE (two system calls; decommit is off the hot path).
func (s *Slab) decommitRaw(lo, hi uintptr) error {
	addr, n := s.pageAddr(lo), (hi-lo)<<s.pageShift
	s.setExecBits(lo, hi, false)
	var err error
	if s.dual {
		err = sysmem.Madvise(s.wbase+(addr-s.base), n, sysmem.MadvRemove)
	} else {
		err = sysmem.Madvise(addr, n, sysmem.MadvDontneed)
	}
	s.st.madvises.Add(1)
	if err2 := sysmem.Mprotect(addr, n, sysmem.ProtNone); err2 != nil {
		err = errors.Join(err, err2)
		for i := lo; i < hi; i++ {
			s.pages[i] |= psUnknown
		}
	} else {
		for i := lo; i < hi; i++ {
			s.pages[i] = uint8(ProtNone)
		}
	}
	s.st.protects.Add(1)
	s.st.decommits.Add(1)
	return err
}

// decommitCachedLocked decommits every cached span so fragmented cache
// entries can merge with their free neighbours.
func (s *Slab) decommitCachedLocked() error {
	var errs []error
	for i := range s.free.spans {
		sp := &s.free.spans[i]
		if !sp.cached {
			continue
		}
		if err := s.decommitRaw(sp.start, sp.start+sp.n); err != nil {
			errs = append(errs, err)
		}
		sp.cached = false
	}
	s.cachedPages = 0
	s.free.coalesce()
	return errors.Join(errs...)
}

func (s *Slab) allProtLocked(lo, hi uintptr, p Prot) bool {
	for i := lo; i < hi; i++ {
		if s.pages[i]&(psProtMask|psUnknown) != uint8(p) {
			return false
		}
	}
	return true
}
