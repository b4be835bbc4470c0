package slab

import (
	"fmt"
	"sort"

	"github.com/orcgo/orcrt/arch"
)

// Block is a handle to a small allocation made by a [Packer]. Addr is the
// address code refers to (the executable view when dual-mapped).
type Block struct {
	Addr, Size uintptr
	rec        *region
	gen        uint64
}

// packRegion is the Packer-specific part of a region record.
type packRegion struct {
	owner    *Packer
	blocks   []uintptr // offsets of live blocks, ascending (bump allocation keeps order)
	open     bool      // may still receive blocks or is awaiting Finalize: never released while set
	frontier uintptr   // blocks at offsets >= frontier are not finalized yet (writable via Packer.Write)
	bump     uintptr   // next free offset
	pending  bool      // listed in owner.pending
}

// Packer packs small blocks that share one final protection into pages,
// so many small functions do not cost a page each. Usage:
//
//	p, _ := s.NewPacker(slab.ProtRX, 0)
//	b, _ := p.Alloc(len(code), 16)
//	_ = p.Write(b, 0, code)
//	_ = p.Finalize()          // one protection change per packed region
//	... call b.Addr ...
//	_ = s.FreeBlock(b)        // any goroutine
//
// Blocks are writable from Alloc until the next Finalize, which protects
// every region that received blocks. A non-writable region then takes no
// new blocks, except in DualMap mode (written through the writable view).
// A region goes back to the slab when it is closed and its last block
// has been freed.
//
// A Packer is not safe for concurrent use (give each compiling goroutine
// its own); [Slab.FreeBlock] is.
type Packer struct {
	s       *Slab
	prot    Prot
	chunk   uintptr
	cur     *region
	pending []*region
	closed  bool
}

// NewPacker returns a Packer whose blocks end with protection prot.
// chunk is the size of the regions it carves blocks from (rounded up to
// pages; 0 means one page). Blocks larger than chunk get a region of
// their own.
func (s *Slab) NewPacker(prot Prot, chunk uintptr) (*Packer, error) {
	if err := prot.Check(); err != nil {
		return nil, opErr("new packer", 0, 0, err)
	}
	if chunk == 0 {
		chunk = s.pageSize
	}
	if chunk > s.size {
		return nil, opErr("new packer", 0, chunk, ErrBadSize)
	}
	chunk = (chunk + s.pageSize - 1) &^ (s.pageSize - 1)
	return &Packer{s: s, prot: prot, chunk: chunk}, nil
}

// stayOpen reports whether a finalized region may keep receiving blocks.
func (p *Packer) stayOpen() bool { return p.s.dual || p.prot&ProtWrite != 0 }

// Alloc returns a block of size bytes aligned to align (a power of two no
// larger than the page size; 0 means 16), writable until the next
// Finalize.
func (p *Packer) Alloc(size, align uintptr) (Block, error) {
	if align == 0 {
		align = 16
	}
	s := p.s
	if size == 0 || size > s.size || align&(align-1) != 0 || align > s.pageSize {
		return Block{}, opErr("alloc block", 0, size, fmt.Errorf("%w (size %d, align %d)", ErrBadSize, size, align))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || p.closed {
		return Block{}, opErr("alloc block", 0, size, ErrClosed)
	}
	r := p.cur
	var off uintptr
	if r != nil {
		off = (r.pk.bump + align - 1) &^ (align - 1)
		if off < r.pk.bump || off+size > r.size || off+size < off {
			r = nil
		}
	}
	if r == nil {
		n := (max(size, p.chunk) + s.pageSize - 1) >> s.pageShift
		nr, err := s.reserveLocked(n)
		if err != nil {
			return Block{}, opErr("alloc block", 0, size, err)
		}
		nr.pk = &packRegion{owner: p, open: true}
		if size <= p.chunk || p.cur == nil {
			// The new region becomes the current one; the old current stays
			// open until Finalize (it is listed in pending if it has
			// unfinalized blocks) and is closed there.
			if old := p.cur; old != nil && !old.pk.pending {
				p.closeLocked(old)
			}
			p.cur = nr
		}
		r, off = nr, 0
	}
	r.pk.blocks = append(r.pk.blocks, off)
	r.pk.bump = off + size
	if !r.pk.pending {
		r.pk.pending = true
		p.pending = append(p.pending, r)
	}
	return Block{Addr: r.base + off, Size: size, rec: r, gen: r.gen}, nil
}

// closeLocked stops a region from receiving blocks and returns it to the
// slab if it holds none.
func (p *Packer) closeLocked(r *region) {
	r.pk.open = false
	if p.cur == r {
		p.cur = nil
	}
	if len(r.pk.blocks) == 0 {
		_ = p.s.releaseLocked(r)
	}
}

// Write copies src into block b at offset off. b must come from this
// Packer and not be finalized yet.
func (p *Packer) Write(b Block, off uintptr, src []byte) error {
	s := p.s
	s.mu.Lock()
	r := b.rec
	switch {
	case s.closed || p.closed:
		s.mu.Unlock()
		return opErr("write block", b.Addr, b.Size, ErrClosed)
	case r == nil || r.s != s || r.pk == nil || r.pk.owner != p:
		s.mu.Unlock()
		return opErr("write block", b.Addr, b.Size, ErrForeign)
	case !r.live || r.gen != b.gen || !r.pk.hasBlock(b.Addr-r.base):
		s.mu.Unlock()
		return opErr("write block", b.Addr, b.Size, ErrDoubleFree)
	case b.Addr-r.base < r.pk.frontier:
		s.mu.Unlock()
		return opErr("write block", b.Addr, b.Size, fmt.Errorf("%w: block already finalized", ErrNotWritable))
	case off > b.Size || uintptr(len(src)) > b.Size-off:
		s.mu.Unlock()
		return opErr("write block", b.Addr, b.Size, fmt.Errorf("%w: %d bytes at offset %d", ErrBadSize, len(src), off))
	}
	if len(src) == 0 {
		s.mu.Unlock()
		return nil
	}
	addr, size := b.Addr+off, uintptr(len(src))
	lo, hi, _ := s.pageSpan(addr, size)
	popLo, popHi := hi, lo
	for i := lo; i < hi; i++ {
		if s.pages[i]&psPopulated == 0 {
			popLo, popHi = min(popLo, i), i+1
		}
	}
	if err := s.fillPinned(r, addr, src, size, popLo, popHi); err != nil {
		return opErr("write block", addr, size, err)
	}
	return nil
}

// Finalize protects every region that received blocks since the last
// Finalize (at most one system call each, caches flushed); the blocks may
// then run. It fails with [ErrBusy] if a Write is in flight.
func (p *Packer) Finalize() error {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	return p.finalizeLocked()
}

// finalizeLocked is Finalize with the slab's lock held.
func (p *Packer) finalizeLocked() error {
	s := p.s
	if s.closed {
		return opErr("finalize", 0, 0, ErrClosed)
	}
	for _, r := range p.pending {
		if r.writers > 0 {
			return opErr("finalize", r.base, r.size, ErrBusy)
		}
	}
	var firstErr error
	for _, r := range p.pending {
		lo, hi := s.pageIndex(r.base), s.pageIndex(r.base+r.size)
		if !s.allProtLocked(lo, hi, p.prot) {
			if err := s.protectRaw(lo, hi, p.prot); err != nil && firstErr == nil {
				firstErr = opErr("finalize", r.base, r.size, err)
			}
		} else if p.prot&ProtExec != 0 && r.pk.bump > r.pk.frontier {
			// Dual-mapped region already executable: new blocks were written
			// through the writable view; publish just them.
			a := r.base + r.pk.frontier
			arch.FlushICache(a, r.pk.bump-r.pk.frontier)
			s.st.flushs.Add(1)
			if s.syncCores {
				if err := arch.SyncCores(); err != nil && firstErr == nil {
					firstErr = opErr("finalize", r.base, r.size, err)
				}
			}
		}
		r.pk.frontier = r.pk.bump
		r.pk.pending = false
		if r != p.cur || !p.stayOpen() {
			p.closeLocked(r)
		}
	}
	clear(p.pending)
	p.pending = p.pending[:0]
	return firstErr
}

// Close finalizes pending blocks and detaches the Packer: its regions go
// back to the slab as their last blocks are freed. Later Allocs fail.
func (p *Packer) Close() error {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.closed {
		return opErr("close packer", 0, 0, ErrClosed)
	}
	var err error
	if !s.closed {
		err = p.finalizeLocked()
		if p.cur != nil {
			p.closeLocked(p.cur)
		}
	}
	p.closed = true
	return err
}

func (pk *packRegion) hasBlock(off uintptr) bool {
	i := sort.Search(len(pk.blocks), func(i int) bool { return pk.blocks[i] >= off })
	return i < len(pk.blocks) && pk.blocks[i] == off
}

// FreeBlock frees a block. Its region returns to the slab when the region
// is closed and this was its last block. Freeing twice returns an error
// wrapping [ErrDoubleFree]; a block of another slab, [ErrForeign]. Safe
// for concurrent use.
func (s *Slab) FreeBlock(b Block) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return opErr("free block", b.Addr, b.Size, ErrClosed)
	}
	r := b.rec
	if r == nil || r.s != s {
		return opErr("free block", b.Addr, b.Size, ErrForeign)
	}
	if !r.live || r.gen != b.gen || r.pk == nil {
		return opErr("free block", b.Addr, b.Size, ErrDoubleFree)
	}
	pk := r.pk
	off := b.Addr - r.base
	i := sort.Search(len(pk.blocks), func(i int) bool { return pk.blocks[i] >= off })
	if i == len(pk.blocks) || pk.blocks[i] != off {
		return opErr("free block", b.Addr, b.Size, ErrDoubleFree)
	}
	pk.blocks = append(pk.blocks[:i], pk.blocks[i+1:]...)
	if len(pk.blocks) == 0 && !pk.open {
		if err := s.releaseLocked(r); err != nil {
			return opErr("free block", b.Addr, b.Size, err)
		}
	}
	return nil
}
