package slab

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// Mapping is one line of /proc/self/maps.
type Mapping struct {
	Start, End uintptr
	Prot       Prot
	Shared     bool
	Path       string
}

// ReadMaps parses /proc/self/maps. It is meant for tests and Verify.
func ReadMaps() ([]Mapping, error) {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return nil, fmt.Errorf("slab: reading maps: %w", err)
	}
	var out []Mapping
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) < 5 {
			continue
		}
		dash := bytes.IndexByte(f[0], '-')
		if dash < 0 || len(f[1]) < 4 {
			return nil, fmt.Errorf("slab: malformed maps line %q", sc.Text())
		}
		lo, err1 := strconv.ParseUint(string(f[0][:dash]), 16, 64)
		hi, err2 := strconv.ParseUint(string(f[0][dash+1:]), 16, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("slab: malformed maps line %q", sc.Text())
		}
		m := Mapping{Start: uintptr(lo), End: uintptr(hi), Shared: f[1][3] == 's'}
		if f[1][0] == 'r' {
			m.Prot |= ProtRead
		}
		if f[1][1] == 'w' {
			m.Prot |= ProtWrite
		}
		if f[1][2] == 'x' {
			m.Prot |= ProtExec
		}
		if len(f) >= 6 {
			m.Path = string(bytes.Join(f[5:], []byte(" ")))
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

// Verify checks the slab's invariants: live regions are page-aligned,
// sorted and disjoint; free spans are disjoint from them and with them
// cover the arena exactly; no page is modelled writable and executable;
// free pages are PROT_NONE (decommitted) or RW (cached); the lock-free
// executable bitmap matches the model. With kernel set it also compares
// the model with /proc/self/maps page by page and checks that no mapping
// of the arena (either view) is writable and executable. It is slow and
// allocates; it is meant for tests and fuzzing.
func (s *Slab) Verify(kernel bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	v := &verifier{s: s, owner: make([]uint8, s.npages)}
	v.regions()
	v.freeSpans()
	v.pages()
	if kernel && len(v.errs) == 0 {
		v.errs = append(v.errs, s.verifyKernelLocked()...)
	}
	return errors.Join(v.errs...)
}

// verifier checks the model page by page; owner is 0 unclaimed, 1 live
// region, 2 free cached, 3 free decommitted.
type verifier struct {
	s     *Slab
	owner []uint8
	errs  []error
}

func (v *verifier) bad(format string, a ...any) {
	if len(v.errs) < 20 {
		v.errs = append(v.errs, fmt.Errorf("slab: verify: "+format, a...))
	}
}

// regions checks the live regions and claims their pages.
func (v *verifier) regions() {
	s, bad := v.s, v.bad
	var prevEnd uintptr
	livePages := uintptr(0)
	for i, r := range s.regions {
		if !r.live || r.s != s {
			bad("region %d at %#x not live", i, r.base)
		}
		if r.base&(s.pageSize-1) != 0 || r.size == 0 || r.size&(s.pageSize-1) != 0 {
			bad("region %#x+%#x not page-granular", r.base, r.size)
			continue
		}
		if r.base < s.base || r.base+r.size > s.base+s.size {
			bad("region %#x+%#x outside arena", r.base, r.size)
			continue
		}
		if i > 0 && r.base < prevEnd {
			bad("region %#x overlaps previous (ends %#x)", r.base, prevEnd)
		}
		prevEnd = r.base + r.size
		for p := s.pageIndex(r.base); p < s.pageIndex(r.base+r.size); p++ {
			v.owner[p] = 1
			livePages++
		}
		if r.pk != nil {
			prevOff := uintptr(0)
			for j, off := range r.pk.blocks {
				if off >= r.size || (j > 0 && off <= prevOff) {
					bad("packed region %#x: bad block offsets %v", r.base, r.pk.blocks)
					break
				}
				prevOff = off
			}
		}
	}
	if livePages != s.livePages {
		bad("live pages %d, counted %d", s.livePages, livePages)
	}
}

// freeSpans checks the free list and claims its pages.
func (v *verifier) freeSpans() {
	s, bad := v.s, v.bad
	var cached uintptr
	var prevSpanEnd uintptr
	for i, sp := range s.free.spans {
		if sp.n == 0 || sp.start+sp.n > s.npages {
			bad("free span %d (%d+%d) empty or outside arena", i, sp.start, sp.n)
			continue
		}
		if i > 0 && sp.start < prevSpanEnd {
			bad("free span %d overlaps previous", i)
		}
		prevSpanEnd = sp.start + sp.n
		for p := sp.start; p < sp.start+sp.n; p++ {
			if v.owner[p] != 0 {
				bad("page %#x both free and live", s.pageAddr(p))
			}
			if sp.cached {
				v.owner[p] = 2
			} else {
				v.owner[p] = 3
			}
		}
		if sp.cached {
			cached += sp.n
		}
	}
	if cached != s.cachedPages {
		bad("cached pages %d, counted %d", s.cachedPages, cached)
	}
}

// pages checks every page's modelled protection and exec bit against its
// owner.
func (v *verifier) pages() {
	s, bad := v.s, v.bad
	for p := uintptr(0); p < s.npages; p++ {
		st := s.pages[p]
		prot := Prot(st & psProtMask)
		if prot&(ProtWrite|ProtExec) == ProtWrite|ProtExec {
			bad("page %#x modelled %v", s.pageAddr(p), prot)
		}
		switch v.owner[p] {
		case 0:
			bad("page %#x neither free nor live", s.pageAddr(p))
		case 2:
			if st&psUnknown == 0 && prot != ProtRW {
				bad("cached free page %#x is %v, want rw-", s.pageAddr(p), prot)
			}
		case 3:
			if st&psUnknown == 0 && prot != ProtNone {
				bad("decommitted page %#x is %v, want ---", s.pageAddr(p), prot)
			}
		}
		wantX := v.owner[p] == 1 && st&psUnknown == 0 && prot&ProtExec != 0
		gotX := s.execBits[p/64].Load()>>(p%64)&1 != 0
		if wantX != gotX {
			bad("page %#x exec bit %t, model says %t", s.pageAddr(p), gotX, wantX)
		}
	}
}

// verifyKernelLocked compares the model with /proc/self/maps, re-reading
// a few times before reporting a mismatch (one read is not atomic).
func (s *Slab) verifyKernelLocked() []error {
	var errs []error
	for range 4 {
		if errs = s.verifyKernelOnce(); len(errs) == 0 {
			return nil
		}
	}
	return errs
}

func (s *Slab) verifyKernelOnce() []error {
	maps, err := ReadMaps()
	if err != nil {
		return []error{err}
	}
	var errs []error
	bad := func(format string, a ...any) {
		if len(errs) < 20 {
			errs = append(errs, fmt.Errorf("slab: verify kernel: "+format, a...))
		}
	}
	covered := uintptr(0)
	wcovered := uintptr(0)
	for _, m := range maps {
		if m.Prot&(ProtWrite|ProtExec) == ProtWrite|ProtExec && m.Start < s.base+s.size && m.End > s.base {
			bad("mapping [%#x, %#x) of the arena is %v", m.Start, m.End, m.Prot)
		}
		if s.dual && m.Start < s.wbase+s.size && m.End > s.wbase {
			lo, hi := max(m.Start, s.wbase), min(m.End, s.wbase+s.size)
			wcovered += hi - lo
			if m.Prot != ProtRW || !m.Shared {
				bad("writable view [%#x, %#x) is %v shared=%t", lo, hi, m.Prot, m.Shared)
			}
		}
		if m.Start >= s.base+s.size || m.End <= s.base {
			continue
		}
		lo, hi := max(m.Start, s.base), min(m.End, s.base+s.size)
		covered += hi - lo
		for a := lo; a < hi; a += s.pageSize {
			st := s.pages[s.pageIndex(a)]
			if st&psUnknown != 0 {
				continue
			}
			if want := Prot(st & psProtMask); want != m.Prot {
				bad("page %#x: kernel %v, model %v", a, m.Prot, want)
			}
		}
	}
	if covered != s.size {
		bad("arena [%#x, %#x) only %#x bytes mapped", s.base, s.base+s.size, covered)
	}
	if s.dual && wcovered != s.size {
		bad("writable view only %#x of %#x bytes mapped", wcovered, s.size)
	}
	return errs
}
