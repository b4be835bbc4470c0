package slab

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/orcgo/orcrt/internal/sysmem"
)

// Write copies src to [addr, addr+len(src)) and zero-fills up to
// addr+size, through the writable view. The span must lie in one live
// region whose pages are writable now: Write never changes a protection.
// Fresh pages are pre-faulted first. It does not allocate. Concurrent
// Writes are allowed; a concurrent Protect or Release of the region fails
// with [ErrBusy]. Errors wrap [ErrBadSize], [ErrNotMapped],
// [ErrNotWritable] or the pre-fault's error.
func (s *Slab) Write(addr uintptr, src []byte, size uintptr) error {
	if uintptr(len(src)) > size {
		return opErr("write", addr, size, fmt.Errorf("%w: %d content bytes exceed the %d-byte span", ErrBadSize, len(src), size))
	}
	if size == 0 {
		return nil
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return opErr("write", addr, size, ErrClosed)
	}
	lo, hi, ok := s.pageSpan(addr, size)
	var r *region
	if ok {
		r = s.findLocked(addr, size)
	}
	if r == nil {
		s.mu.Unlock()
		return opErr("write", addr, size, ErrNotMapped)
	}
	if r.pk != nil {
		s.mu.Unlock()
		return opErr("write", addr, size, fmt.Errorf("%w: region belongs to a Packer (use Packer.Write)", ErrForeign))
	}
	popLo, popHi := hi, lo
	for i := lo; i < hi; i++ {
		st := s.pages[i]
		if st&psUnknown != 0 || Prot(st&psProtMask)&ProtWrite == 0 {
			s.mu.Unlock()
			return opErr("write", addr, size, fmt.Errorf("%w: page %#x is %v", ErrNotWritable, s.pageAddr(i), Prot(st&psProtMask)))
		}
		if st&psPopulated == 0 {
			popLo, popHi = min(popLo, i), i+1
		}
	}
	if err := s.fillPinned(r, addr, src, size, popLo, popHi); err != nil {
		return opErr("write", addr, size, err)
	}
	return nil
}

// fillPinned fills with s.mu (held on entry) released for the copy and
// r pinned meanwhile (Protect, Release and Close fail with ErrBusy); it
// returns with s.mu released.
func (s *Slab) fillPinned(r *region, addr uintptr, src []byte, size, popLo, popHi uintptr) error {
	r.writers++
	s.mu.Unlock()
	err := s.fill(addr, src, size, popLo, popHi)
	s.mu.Lock()
	r.writers--
	if err == nil && !s.closed {
		for i := popLo; i < popHi; i++ {
			s.pages[i] |= psPopulated
		}
	}
	s.mu.Unlock()
	return err
}

// fill pre-faults pages [popLo, popHi) (if non-empty) and copies.
func (s *Slab) fill(addr uintptr, src []byte, size, popLo, popHi uintptr) error {
	w := s.wbase + (addr - s.base)
	if popLo < popHi {
		if err := s.prefaultRange(w, addr, size, popLo, popHi); err != nil {
			return err
		}
	}
	dst := sysmem.View(w, size)
	n := copy(dst, src)
	clear(dst[n:])
	return nil
}

func (s *Slab) prefaultRange(w, addr, size, popLo, popHi uintptr) error {
	mode := s.prefault
	if mode == PrefaultAuto && populateState.Load() == 2 {
		mode = PrefaultTouch
	}
	switch mode {
	case PrefaultNone:
		return nil
	case PrefaultAuto:
		pw := s.wbase + popLo<<s.pageShift
		err := sysmem.Madvise(pw, (popHi-popLo)<<s.pageShift, sysmem.MadvPopulateWrite)
		s.st.madvises.Add(1)
		s.st.populates.Add(1)
		if err == nil {
			populateState.CompareAndSwap(0, 1)
			return nil
		}
		if !errors.Is(err, syscall.EINVAL) {
			return fmt.Errorf("pre-faulting: %w", err)
		}
		populateState.Store(2) // kernel < 5.14: remember, touch instead
	}
	// Touch: write one byte per page that the copy will overwrite anyway
	// (the first destination byte in that page), never a neighbour's.
	end := w + size
	for i := popLo; i < popHi; i++ {
		p := max(s.wbase+i<<s.pageShift, w)
		if p < end {
			sysmem.View(p, 1)[0] = 0
			s.st.touches.Add(1)
		}
	}
	return nil
}
