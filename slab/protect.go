package slab

import (
	"fmt"

	"github.com/orcgo/orcrt/arch"
)

// Protect sets the protection of the pages covering [addr, addr+size)
// (start rounded down, end rounded up to pages, as LLVM does), which must
// lie inside one live region. It makes exactly one system call, or none
// when every page already has p. When p includes execute, the instruction
// cache is flushed for the pages after the change (so a range reused for
// code is always flushed). p must pass [Prot.Check]: W|X is refused on
// every architecture. size == 0 is a no-op. Errors wrap [ErrWriteExec],
// [ErrExecOnly], [ErrNotMapped], [ErrBusy], [ErrNotSupported] (execute on
// a GOARCH without cache maintenance) or the system call's error.
func (s *Slab) Protect(addr, size uintptr, p Prot) error {
	if err := p.Check(); err != nil {
		return opErr("protect", addr, size, err)
	}
	if p&ProtExec != 0 && !arch.Supported {
		return opErr("protect", addr, size, ErrNotSupported)
	}
	if size == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return opErr("protect", addr, size, ErrClosed)
	}
	lo, hi, ok := s.pageSpan(addr, size)
	var r *region
	if ok {
		r = s.findLocked(s.pageAddr(lo), (hi-lo)<<s.pageShift)
	}
	if r == nil {
		return opErr("protect", addr, size, ErrNotMapped)
	}
	if r.pk != nil {
		return opErr("protect", addr, size, fmt.Errorf("%w: region belongs to a Packer (use Packer.Finalize)", ErrForeign))
	}
	if r.writers > 0 {
		return opErr("protect", addr, size, ErrBusy)
	}
	if s.allProtLocked(lo, hi, p) {
		return nil
	}
	if err := s.protectRaw(lo, hi, p); err != nil {
		return opErr("protect", addr, size, err)
	}
	return nil
}
