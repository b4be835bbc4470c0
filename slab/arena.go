package slab

import (
	"errors"
	"fmt"

	"github.com/orcgo/orcrt/internal/sysmem"
)

// mapPageStates maps the page-state array (a byte per page) outside the
// Go heap: a 2 GiB arena has 512 Ki pages, of which a session uses a
// few, and untouched anonymous pages cost neither RSS nor clearing.
func (s *Slab) mapPageStates() ([]uint8, error) {
	n := (s.npages + s.pageSize - 1) &^ (s.pageSize - 1)
	p, err := sysmem.Mmap(0, n, sysmem.ProtRead|sysmem.ProtWrite, sysmem.MapPrivate|sysmem.MapAnonymous|sysmem.MapNoreserve, -1, 0)
	if err != nil {
		return nil, fmt.Errorf("mapping page states: %w", err)
	}
	s.pagesMap, s.pagesMapLen = p, n
	return sysmem.View(p, n)[:s.npages], nil
}

// unmapArena undoes mapArena (Close, and New's error path).
func (s *Slab) unmapArena() error {
	err := sysmem.Munmap(s.base, s.size)
	s.st.unmaps.Add(1)
	if s.dual {
		err = errors.Join(err, sysmem.Munmap(s.wbase, s.size), sysmem.Close(s.fd))
		s.st.unmaps.Add(1)
	}
	return err
}

func (s *Slab) mapArena(name string) error {
	if !s.dual {
		b, err := sysmem.Mmap(0, s.size, sysmem.ProtNone, sysmem.MapPrivate|sysmem.MapAnonymous|sysmem.MapNoreserve, -1, 0)
		s.st.maps.Add(1)
		if err != nil {
			return fmt.Errorf("reserving arena: %w", err)
		}
		s.base, s.wbase = b, b
		return nil
	}
	if name == "" {
		name = "orcrt-slab"
	}
	fd, err := sysmem.MemfdCreate(name, sysmem.MfdCloexec)
	if err != nil {
		return err
	}
	if err := sysmem.Ftruncate(fd, int64(s.size)); err != nil {
		_ = sysmem.Close(fd)
		return err
	}
	w, err := sysmem.Mmap(0, s.size, sysmem.ProtRead|sysmem.ProtWrite, sysmem.MapShared, fd, 0)
	s.st.maps.Add(1)
	if err != nil {
		_ = sysmem.Close(fd)
		return fmt.Errorf("mapping writable view: %w", err)
	}
	x, err := sysmem.Mmap(0, s.size, sysmem.ProtNone, sysmem.MapShared, fd, 0)
	s.st.maps.Add(1)
	if err != nil {
		_ = sysmem.Munmap(w, s.size)
		_ = sysmem.Close(fd)
		return fmt.Errorf("mapping executable view: %w", err)
	}
	s.fd, s.base, s.wbase = fd, x, w
	return nil
}

// Arena returns the reserved address range [base, base+size) every region
