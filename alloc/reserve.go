package alloc

import (
	"errors"
	"fmt"
	"slices"
	"syscall"

	"github.com/orcgo/orcrt/internal/sysmem"
	"github.com/orcgo/orcrt/native/jitsyms"
	"github.com/orcgo/orcrt/slab"
	"github.com/orcgo/orcrt/sps"
)

// Reserve reserves size bytes (rounded up to whole pages, as the stock's
// mmap does) of read-write memory and returns its base. Reserve(0)
// returns address 0, as the stock does (its mmap of 0 bytes yields an
// empty block). Failure to find address space is reported as
// "Cannot allocate memory", mmap's strerror text.
func (m *MemoryManager) Reserve(size uint64) (sps.Addr, error) {
	if size == 0 {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.closed {
			return 0, fmt.Errorf("alloc: reserve: %w", ErrClosed)
		}
		if m.findExactLocked(0) == nil {
			m.insertLocked(&reservation{})
		}
		return 0, nil
	}
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return 0, fmt.Errorf("alloc: reserve: %w", ErrClosed)
	}
	r, err := m.carve(size)
	if err != nil {
		return 0, err
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		_ = m.unmap(r)
		return 0, fmt.Errorf("alloc: reserve: %w", ErrClosed)
	}
	m.insertLocked(r)
	m.mu.Unlock()
	return sps.Addr(r.base), nil
}

// carve takes size bytes from an arena, creating one if needed.
func (m *MemoryManager) carve(size uint64) (*reservation, error) {
	page := uint64(sysmem.PageSize())
	if size > 1<<62 {
		return nil, enomem(nil)
	}
	if size > maxReservation() {
		return nil, errTooLarge(size)
	}
	asz := m.cfg.arenaSize()
	if (size+page-1)&^(page-1) > uint64(asz) {
		// Larger than an arena: a dedicated one, freed at release.
		a, err := slab.New(slab.Config{Size: uintptr(size), NoCache: true})
		if err != nil {
			return nil, enomem(err)
		}
		reg, err := a.Reserve(uintptr(size))
		if err != nil {
			_ = a.Close()
			return nil, enomem(err)
		}
		return &reservation{base: uint64(reg.Base()), size: size, arena: a, region: reg, own: true}, nil
	}
	tried := *m.arenas.Load()
	for _, a := range tried {
		if r, err := tryArena(a, size); r != nil || err != nil {
			return r, err
		}
	}
	m.arenaMu.Lock()
	defer m.arenaMu.Unlock()
	cur := *m.arenas.Load()
	for _, a := range cur[len(tried):] { // created while we were trying
		if r, err := tryArena(a, size); r != nil || err != nil {
			return r, err
		}
	}
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("alloc: reserve: %w", ErrClosed)
	}
	if len(cur) >= m.cfg.maxArenas() {
		return nil, enomem(slab.ErrNoSpace)
	}
	a, err := slab.New(slab.Config{
		Size:      asz,
		Near:      asz <= slab.MaxNearSize,
		MaxCached: m.cfg.MaxCached,
		NoCache:   m.cfg.NoCache,
	})
	if err != nil {
		return nil, enomem(err)
	}
	next := append(append(make([]*slab.Slab, 0, len(cur)+1), cur...), a)
	m.arenas.Store(&next)
	if r, err := tryArena(a, size); r != nil || err != nil {
		return r, err
	}
	return nil, enomem(slab.ErrNoSpace)
}

// tryArena reserves from a; (nil, nil) means "full, try another".
func tryArena(a *slab.Slab, size uint64) (*reservation, error) {
	reg, err := a.Reserve(uintptr(size))
	switch {
	case err == nil:
		return &reservation{base: uint64(reg.Base()), size: size, arena: a, region: reg}, nil
	case errors.Is(err, slab.ErrNoSpace):
		return nil, nil
	}
	return nil, enomem(err)
}

// enomem reports a failed reservation as the stock's failed mmap would.
func enomem(cause error) error {
	if cause != nil && !errors.Is(cause, slab.ErrNoSpace) && !errors.Is(cause, syscall.ENOMEM) {
		return strerror(cause)
	}
	return &llvmError{msg: "Cannot allocate memory", err: cause}
}

// unmap gives a dead reservation's memory back; the names of the JIT'd
// functions in it go first.
func (m *MemoryManager) unmap(r *reservation) error {
	jitsyms.RemoveRange(r.base, r.base+r.size)
	m.mu.Lock()
	if i := slices.Index(m.dying, r); i >= 0 {
		m.dying = slices.Delete(m.dying, i, i+1)
	}
	m.mu.Unlock()
	switch {
	case r.arena == nil:
		return nil
	case r.own:
		return r.arena.Close()
	}
	return r.arena.Release(r.region)
}
