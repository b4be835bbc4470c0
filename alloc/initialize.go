package alloc

import (
	"errors"
	"fmt"

	"github.com/orcgo/orcrt/internal/sysmem"
	"github.com/orcgo/orcrt/slab"
	"github.com/orcgo/orcrt/sps"
)

// initScratch is reused across initialize calls.
type initScratch struct {
	fr      sps.FinalizeRequest
	prot    []slab.Prot
	restore []span
	actionScratch
}

func (sc *initScratch) reset() {
	sc.actionScratch.reset()
	sc.prot, sc.restore = sc.prot[:0], sc.restore[:0]
}

// Initialize finalizes the segments of fr inside one reservation and runs
// its allocation actions (docs/protocol.md §6.2), returning the region's key:
// the lowest address of its standard-lifetime segments (of all segments
// when every one is finalize-lifetime). fr is only read during the call:
// content and dealloc arguments are copied, so the caller may reuse fr and
// the buffers it points into afterwards. Reservation and overlap are
// checked before anything is written, protected or run (RATIONALE.md,
// "alloc").
func (m *MemoryManager) Initialize(fr *sps.FinalizeRequest) (sps.Addr, error) {
	sc := m.scratch.get()
	defer m.scratch.put(sc)
	return m.initializeWith(fr, sc)
}

func (m *MemoryManager) initializeWith(fr *sps.FinalizeRequest, sc *initScratch) (sps.Addr, error) {
	if len(fr.Segments) == 0 {
		if len(fr.Actions) == 0 {
			return 0, &llvmError{msg: MsgEmptyRequest}
		}
		return 0, &llvmError{msg: MsgActionsWithoutSegments}
	}
	o, err := enter(m.s, "initialize")
	if err != nil {
		return 0, err
	}
	defer o.end()
	return m.initialize(fr, sc)
}

// segProt maps a segment's RemoteAllocGroup to a page protection. W|X is
// refused (W^X); execute-only becomes read+execute (Linux maps PROT_EXEC
// readable on x86-64 anyway, and cache maintenance needs read access).
func segProt(g sps.AllocGroup, addr uint64) (slab.Prot, error) {
	p := slab.Prot(g.Prot())
	if p&slab.ProtExec != 0 {
		if p&slab.ProtWrite != 0 {
			return 0, fmt.Errorf("alloc: segment %#x: writable and executable protection (%v) refused (W^X)", addr, g)
		}
		p |= slab.ProtRead
	}
	return p, nil
}

// initPlan is what validate learns of a request before anything is
// touched.
type initPlan struct {
	all   span // every segment: the range claimed
	rec   span // the standard-lifetime segments (all if none): the record
	hasFL bool // some segment is finalize-lifetime
}

// initialize runs the steps of an initialize, in the stock's order; a
// failure after the claim abandons it.
func (m *MemoryManager) initialize(fr *sps.FinalizeRequest, sc *initScratch) (sps.Addr, error) {
	segs := fr.Segments
	pl, err := validate(segs, sc)
	if err != nil {
		return 0, err
	}
	res, g, err := m.claim(pl.all, sc)
	if err != nil {
		return 0, err
	}
	nprot := 0
	if err := m.fill(res, segs, sc, &nprot); err != nil {
		return 0, m.abandon(res, g, segs[:nprot], err)
	}
	// On failure the collected deallocs have run in reverse and their
	// errors are joined after the failure's.
	deallocs, cerrs, ferr := runFinalize(m.s, sc.buf, fr.Actions, sc.deallocs[:0], sc.errs[:0])
	sc.deallocs, sc.errs = deallocs, cerrs
	if ferr != nil {
		return 0, m.abandon(res, g, segs, joinFirst(ferr, cerrs))
	}
	if err := m.record(res, g, pl, sc); err != nil {
		return 0, m.abandon(res, g, segs, err)
	}
	m.finish(res, segs, pl.hasFL)
	return sps.Addr(pl.rec.start), nil
}

// validate checks every segment before memory is touched and records the
// protections in sc.prot.
func validate(segs []sps.SegFinalizeRequest, sc *initScratch) (initPlan, error) {
	pl := initPlan{all: span{uint64(segs[0].Addr), uint64(segs[0].Addr)}}
	hasStd := false
	sc.prot = sc.prot[:0]
	for i := range segs {
		sg := &segs[i]
		a := uint64(sg.Addr)
		end := a + sg.Size
		pl.all.start, pl.all.end = min(pl.all.start, a), max(pl.all.end, end)
		if uint64(len(sg.Content)) > sg.Size {
			return pl, errContentSize(a, len(sg.Content), sg.Size)
		}
		if end < a {
			return pl, errInitRange(a, end)
		}
		p, err := segProt(sg.Group, a)
		if err != nil {
			return pl, err
		}
		sc.prot = append(sc.prot, p)
		if sg.Group&sps.FinalizeLifetime != 0 {
			pl.hasFL = true
			continue
		}
		if !hasStd {
			pl.rec, hasStd = span{a, end}, true
		} else {
			pl.rec.start, pl.rec.end = min(pl.rec.start, a), max(pl.rec.end, end)
		}
	}
	if !hasStd {
		pl.rec = pl.all
	}
	return pl, nil
}

// claim reserves all against overlapping initializes with a pending
// region and begins the op in the reservation. The claim (and the
// overlap check, with the stock's message) covers every segment; record
// shrinks it to the standard ones. Dropped pages inside all go to
// sc.restore.
func (m *MemoryManager) claim(all span, sc *initScratch) (*reservation, *region, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, nil, fmt.Errorf("alloc: initialize: %w", ErrClosed)
	}
	res := m.findLocked(all.start, all.end, false)
	if res == nil {
		return nil, nil, errInitRange(all.start, all.end)
	}
	if err := res.overlapLocked(all); err != nil {
		return nil, nil, err
	}
	g := &region{start: all.start, end: all.end, pending: true}
	res.insertRegionLocked(g)
	res.beginOpLocked()
	sc.restore = sc.restore[:0]
	if len(res.dropped) > 0 {
		keep := res.dropped[:0]
		for _, d := range res.dropped {
			if d.overlaps(all) {
				sc.restore = append(sc.restore, d)
			} else {
				keep = append(keep, d)
			}
		}
		res.dropped = keep
	}
	return res, g, nil
}

// abandon undoes a claim after err: protected segments go back to
// read-write, the pending region goes, the op ends.
func (m *MemoryManager) abandon(res *reservation, g *region, protected []sps.SegFinalizeRequest, err error) error {
	res.wmu.Lock()
	m.resetProt(res, protected)
	res.wmu.Unlock()
	return abandonOp(&m.mu, res, m.unmap, func() { res.removeRegionLocked(g) }, err)
}

// record turns the claim into the region's record with a copy of the
// deallocs. If the reservation was released meanwhile, the stock fails
// without undoing the finalize actions; we undo them (the memory is about
// to go) and report the stock's error.
func (m *MemoryManager) record(res *reservation, g *region, pl initPlan, sc *initScratch) error {
	m.mu.Lock()
	if res.dead {
		m.mu.Unlock()
		return sc.undo(m.s, errInitRange(pl.all.start, pl.all.end))
	}
	g.pending = false
	g.start, g.end = pl.rec.start, pl.rec.end // inside the claim: the order is unchanged
	g.dealloc = copyCalls(sc.deallocs)
	m.mu.Unlock()
	return nil
}

// finish gives finalize-lifetime pages back and ends the op.
func (m *MemoryManager) finish(res *reservation, segs []sps.SegFinalizeRequest, hasFL bool) {
	var drop []span
	if hasFL {
		drop = m.dropFinalizeLifetime(res, segs)
	}
	m.mu.Lock()
	res.dropped = append(res.dropped, drop...)
	unmap := res.endOpLocked()
	m.mu.Unlock()
	if unmap {
		m.s.ReportError(m.unmap(res))
	}
}

// fill restores dropped pages that the request covers, copies content
// with zero-fill and protects every segment, under res.wmu; *nprot counts
// the segments protected so far.
func (m *MemoryManager) fill(res *reservation, segs []sps.SegFinalizeRequest, sc *initScratch, nprot *int) error {
	res.wmu.Lock()
	defer res.wmu.Unlock()
	for _, d := range sc.restore {
		if err := res.arena.Protect(uintptr(d.start), uintptr(d.end-d.start), slab.ProtRW); err != nil {
			return fmt.Errorf("alloc: initialize: %w", err)
		}
	}
	for i := range segs {
		sg := &segs[i]
		if sg.Size == 0 {
			continue
		}
		if err := res.arena.Write(uintptr(sg.Addr), sg.Content, uintptr(sg.Size)); err != nil {
			return fmt.Errorf("alloc: initialize: segment %#x: %w", uint64(sg.Addr), err)
		}
	}
	for i := range segs {
		sg := &segs[i]
		if sg.Size != 0 {
			if err := res.arena.Protect(uintptr(sg.Addr), uintptr(sg.Size), sc.prot[i]); err != nil {
				return fmt.Errorf("alloc: initialize: segment %#x: %w", uint64(sg.Addr), err)
			}
		}
		*nprot = i + 1
	}
	return nil
}

// joinFirst joins err and then errs, as LLVM's joinErrors(Err, Rest).
func joinFirst(err error, errs []error) error {
	if len(errs) == 0 {
		return err
	}
	all := make([]error, 0, len(errs)+1)
	return errors.Join(append(append(all, err), errs...)...)
}

// resetProt resets already-protected segments to read-write after a
// failed initialize, as the stock does.
func (m *MemoryManager) resetProt(res *reservation, segs []sps.SegFinalizeRequest) {
	for i := range segs {
		if segs[i].Size == 0 {
			continue
		}
		if err := res.arena.Protect(uintptr(segs[i].Addr), uintptr(segs[i].Size), slab.ProtRW); err != nil {
			m.s.ReportError(fmt.Errorf("alloc: resetting protection after a failed initialize: %w", err))
		}
	}
}

// dropFinalizeLifetime makes the pages that lie wholly inside
// finalize-lifetime segments inaccessible and gives their memory back.
func (m *MemoryManager) dropFinalizeLifetime(res *reservation, segs []sps.SegFinalizeRequest) []span {
	if res.arena == nil { // the zero-sized reservation at address 0
		return nil
	}
	page := uint64(res.arena.PageSize())
	var out []span
	res.wmu.Lock()
	defer res.wmu.Unlock()
	for i := range segs {
		sg := &segs[i]
		if sg.Group&sps.FinalizeLifetime == 0 {
			continue
		}
		lo := (uint64(sg.Addr) + page - 1) &^ (page - 1)
		hi := (uint64(sg.Addr) + sg.Size) &^ (page - 1)
		if lo >= hi {
			continue
		}
		if err := res.arena.Protect(uintptr(lo), uintptr(hi-lo), slab.ProtNone); err != nil {
			m.s.ReportError(fmt.Errorf("alloc: dropping finalize-lifetime segment %#x: %w", uint64(sg.Addr), err))
			continue
		}
		if !res.arena.DualMapped() {
			if err := sysmem.Madvise(uintptr(lo), uintptr(hi-lo), sysmem.MadvDontneed); err != nil {
				m.s.ReportError(fmt.Errorf("alloc: decommitting finalize-lifetime segment %#x: %w", uint64(sg.Addr), err))
			}
		}
		out = append(out, span{lo, hi})
		m.dropped.Add((hi - lo) / page)
	}
	return out
}

// copyCalls copies dealloc actions into storage owned by a region record:
// one allocation for the calls and one for all their argument bytes.
func copyCalls(src []sps.WrapperCall) []sps.WrapperCall {
	if len(src) == 0 {
		return nil
	}
	n := 0
	for _, c := range src {
		n += len(c.Args)
	}
	buf := make([]byte, n)
	out := make([]sps.WrapperCall, len(src))
	for i, c := range src {
		k := copy(buf, c.Args)
		out[i] = sps.WrapperCall{Fn: c.Fn, Args: buf[:k:k]}
		buf = buf[k:]
	}
	return out
}
