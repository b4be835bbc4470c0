package alloc

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/orcgo/orcrt/internal/sysmem"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/jitsyms"
	"github.com/orcgo/orcrt/rt/keepalive"
	"github.com/orcgo/orcrt/slab"
	"github.com/orcgo/orcrt/sps"
)

// Config configures a MemoryManager.
type Config struct {
	// ArenaSize is the address space of each arena (rounded up to pages;
	// 0 means slab.MaxNearSize). Arenas up to slab.MaxNearSize are Near; a
	// larger reservation gets an arena of its own.
	ArenaSize uintptr
	// MaxArenas bounds the number of shared arenas; 0 means 4. When every
	// arena is full, reserve fails with "Cannot allocate memory".
	MaxArenas int
	// MaxCached and NoCache bound the released-but-committed memory each
	// arena keeps for reuse (slab.Config); 0 means slab.DefaultMaxCached.
	MaxCached uintptr
	NoCache   bool
	// PinWait bounds how long a release or deinitialize waits for Go
	// calls into the code it frees (Pin); 0 means DefaultPinWait, a
	// negative value waits for ever. Past it the controller gets a
	// *PinnedError and the memory is freed when the calls return.
	PinWait time.Duration
}

func (c Config) arenaSize() uintptr {
	if c.ArenaSize == 0 {
		return slab.MaxNearSize
	}
	return c.ArenaSize
}

func (c Config) maxArenas() int {
	if c.MaxArenas <= 0 {
		return 4
	}
	return c.MaxArenas
}

// MemoryManager is LLVM 22's SimpleExecutorMemoryManager over package slab:
// reserve / initialize / deinitialize / release with the stock semantics,
// ordering and error strings (docs/protocol.md §5.1, §6), as an
// rt.Service; RATIONALE.md ("alloc") lists the deliberate deviations.
//
// All methods are safe for concurrent use.
type MemoryManager struct {
	s    *rt.Session
	cfg  Config
	inst sps.Addr

	mu     sync.Mutex
	closed bool
	res    []*reservation // sorted by base
	dying  []*reservation // released, not yet unmapped: Pin refuses them

	arenaMu sync.Mutex
	arenas  atomic.Pointer[[]*slab.Slab] // shared arenas, in creation order

	dropped atomic.Uint64  // finalize-lifetime pages given back
	scratch sync.Pool      // *initScratch
	later   sync.WaitGroup // finishLater goroutines
}

// reservation is one reserve()d slab (LLVM's SlabInfo).
type reservation struct {
	base, size uint64 // size as requested: the stock records it unrounded
	arena      *slab.Slab
	region     slab.Region
	own        bool // arena dedicated to this reservation (Close on unmap)

	// wmu serializes the copy-and-protect phases of concurrent
	// initializes (and other protection changes) in this reservation:
	// package slab refuses to change protections in a region while a Write
	// to it is in flight. It is never held while actions run, and never
	// together with MemoryManager.mu.
	wmu sync.Mutex

	// Guarded by MemoryManager.mu:
	regions []*region // sorted by start; includes pending claims
	dropped []span    // finalize-lifetime pages made PROT_NONE
	lifetime
}

// region is one initialized range (LLVM's RegionInfo). A pending region is
// an initialize in progress: it reserves its range against overlaps but is
// invisible to deinitialize and release.
type region struct {
	start, end uint64
	pending    bool
	dealloc    []sps.WrapperCall // Args point into one buffer owned by the record
	sealed     bool              // deinitialized or released: no new pins
	pin        *keepalive.Group  // Go calls into the region (Pin), or nil
}

type span struct{ start, end uint64 }

func (a span) overlaps(b span) bool { return !(b.end <= a.start || a.end <= b.start) }

// initScratch is reused across initialize calls.
type initScratch struct {
	fr       sps.FinalizeRequest
	prot     []slab.Prot
	deallocs []sps.WrapperCall
	errs     []error
	restore  []span
	buf      *resultBuf
}

// NewMemoryManager returns a memory manager for s that is not registered
// anywhere: Register is the usual constructor. It maps nothing until the
// first reservation. The caller must add it to s as a Service (or call
// OnShutdown) so its memory is released.
func NewMemoryManager(s *rt.Session, cfg Config) (*MemoryManager, error) {
	if s == nil {
		return nil, errors.New("alloc: NewMemoryManager: nil Session")
	}
	if cfg.ArenaSize > slab.MaxNearSize*4 {
		return nil, fmt.Errorf("alloc: arena size %#x is too large", cfg.ArenaSize)
	}
	m := &MemoryManager{s: s, cfg: cfg}
	m.arenas.Store(new([]*slab.Slab))
	return m, nil
}

// Register creates a MemoryManager for s, registers its instance and four
// wrappers, adds the five bootstrap symbols to syms all-or-nothing (a
// conflict adds nothing and wraps the *rt.DuplicateSymbolError) and adds
// the manager to s as a Service.
func Register(s *rt.Session, syms *rt.SymbolTable, cfg Config) (*MemoryManager, error) {
	m, err := NewMemoryManager(s, cfg)
	if err != nil {
		return nil, err
	}
	inst := s.RegisterInstance(m)
	wrapper := func(w rt.WrapperFunc) sps.Addr { return s.RegisterWrapper(w, rt.BorrowArgs) }
	symbols := []rt.Symbol{
		{Name: MemoryManagerInstanceName, Addr: inst},
		{Name: MemoryManagerReserveName, Addr: wrapper(reserveWrapper)},
	}
	switch s.Dialect().Memory {
	case dialect.MemoryFinalize:
		symbols = append(symbols,
			rt.Symbol{Name: MemoryManagerFinalizeName, Addr: wrapper(finalizeWrapper)},
			rt.Symbol{Name: MemoryManagerDeallocateName, Addr: wrapper(releaseWrapper)})
	default:
		symbols = append(symbols,
			rt.Symbol{Name: MemoryManagerInitializeName, Addr: wrapper(initializeWrapper)},
			rt.Symbol{Name: MemoryManagerDeinitializeName, Addr: wrapper(deinitializeWrapper)},
			rt.Symbol{Name: MemoryManagerReleaseName, Addr: wrapper(releaseWrapper)})
	}
	err = syms.AddUnique(symbols...)
	if err != nil {
		s.UnregisterInstance(inst)
		return nil, fmt.Errorf("alloc: registering the memory manager: %w", err)
	}
	m.inst = inst
	s.AddService(m)
	return m, nil
}

// InstanceAddr returns the address Register published as
// MemoryManagerInstanceName (0 if the manager was not registered).
func (m *MemoryManager) InstanceAddr() sps.Addr { return m.inst }

// ---- reserve ----

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

// ---- bookkeeping (m.mu held) ----

func (m *MemoryManager) insertLocked(r *reservation) {
	i := sort.Search(len(m.res), func(i int) bool { return m.res[i].base >= r.base })
	m.res = append(m.res, nil)
	copy(m.res[i+1:], m.res[i:])
	m.res[i] = r
}

func (m *MemoryManager) removeLocked(r *reservation) {
	i := sort.Search(len(m.res), func(i int) bool { return m.res[i].base >= r.base })
	if i < len(m.res) && m.res[i] == r {
		m.res = append(m.res[:i], m.res[i+1:]...)
	}
}

func (m *MemoryManager) findExactLocked(base uint64) *reservation {
	i := sort.Search(len(m.res), func(i int) bool { return m.res[i].base >= base })
	if i < len(m.res) && m.res[i].base == base {
		return m.res[i]
	}
	return nil
}

// findLocked returns the reservation whose [base, base+size) contains
// [s, e) (LLVM's getSlabInfo(ExecutorAddrRange)); with point set, the one
// containing address s (getSlabInfo(ExecutorAddr)).
func (m *MemoryManager) findLocked(s, e uint64, point bool) *reservation {
	i := sort.Search(len(m.res), func(i int) bool { return m.res[i].base > s }) - 1
	if i < 0 {
		return nil
	}
	r := m.res[i]
	end := r.base + r.size
	if point {
		if s < end {
			return r
		}
		return nil
	}
	if r.base <= s && e <= end {
		return r
	}
	return nil
}

// overlapLocked checks rec against r's regions the way LLVM's
// createRegionInfo does: the region starting at or before rec.start, then
// the one after it. Unlike the stock, a region with the same start also
// counts as overlapping when either is empty (the stock would silently
// replace that record and lose its dealloc actions).
func (r *reservation) overlapLocked(rec span) error {
	i := sort.Search(len(r.regions), func(i int) bool { return r.regions[i].start > rec.start })
	if i > 0 {
		p := r.regions[i-1]
		ps := span{p.start, p.end}
		if ps.overlaps(rec) || p.start == rec.start {
			return errOverlap(rec.start, rec.end, p.start, p.end, true)
		}
	}
	if i < len(r.regions) {
		n := r.regions[i]
		if (span{n.start, n.end}).overlaps(rec) {
			return errOverlap(rec.start, rec.end, n.start, n.end, false)
		}
	}
	return nil
}

func (r *reservation) insertRegionLocked(g *region) {
	i := sort.Search(len(r.regions), func(i int) bool { return r.regions[i].start > g.start })
	r.regions = append(r.regions, nil)
	copy(r.regions[i+1:], r.regions[i:])
	r.regions[i] = g
}

func (r *reservation) removeRegionLocked(g *region) {
	for i, x := range r.regions {
		if x == g {
			r.regions = append(r.regions[:i], r.regions[i+1:]...)
			return
		}
	}
}

func (r *reservation) regionAtLocked(start uint64) *region {
	i := sort.Search(len(r.regions), func(i int) bool { return r.regions[i].start >= start })
	if i < len(r.regions) && r.regions[i].start == start && !r.regions[i].pending {
		return r.regions[i]
	}
	return nil
}

// endOpLocked ends an operation on r; it reports whether the caller must
// unmap r (it was released meanwhile and this was the last operation).

// ---- initialize ----

// Initialize finalizes the segments of fr inside one reservation and runs
// its allocation actions (docs/protocol.md §6.2), returning the region's key:
// the lowest address of its standard-lifetime segments (of all segments
// when every one is finalize-lifetime). fr is only read during the call:
// content and dealloc arguments are copied, so the caller may reuse fr and
// the buffers it points into afterwards. Reservation and overlap are
// checked before anything is written, protected or run (RATIONALE.md,
// "alloc").
func (m *MemoryManager) Initialize(fr *sps.FinalizeRequest) (sps.Addr, error) {
	sc := m.getScratch()
	defer m.putScratch(sc)
	return m.initializeWith(fr, sc)
}

func (m *MemoryManager) initializeWith(fr *sps.FinalizeRequest, sc *initScratch) (sps.Addr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if len(fr.Segments) == 0 {
		if len(fr.Actions) == 0 {
			return 0, &llvmError{msg: MsgEmptyRequest}
		}
		return 0, &llvmError{msg: MsgActionsWithoutSegments}
	}
	tok, err := m.s.AcquireKeepalive()
	if err != nil {
		return 0, fmt.Errorf("alloc: initialize: %w", err)
	}
	defer tok.Release()
	return m.initialize(fr, sc)
}

func (m *MemoryManager) getScratch() *initScratch {
	if sc, ok := m.scratch.Get().(*initScratch); ok {
		return sc
	}
	return &initScratch{buf: getBuf()}
}

func (m *MemoryManager) putScratch(sc *initScratch) {
	clear(sc.deallocs)
	clear(sc.errs)
	sc.deallocs, sc.errs, sc.prot, sc.restore = sc.deallocs[:0], sc.errs[:0], sc.prot[:0], sc.restore[:0]
	m.scratch.Put(sc)
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

func (m *MemoryManager) initialize(fr *sps.FinalizeRequest, sc *initScratch) (sps.Addr, error) {
	segs := fr.Segments

	// 1. Validate everything before touching memory.
	all := span{uint64(segs[0].Addr), uint64(segs[0].Addr)}
	var std span
	hasStd, hasFL := false, false
	sc.prot = sc.prot[:0]
	for i := range segs {
		sg := &segs[i]
		a := uint64(sg.Addr)
		end := a + sg.Size
		all.start, all.end = min(all.start, a), max(all.end, end)
		if uint64(len(sg.Content)) > sg.Size {
			return 0, errContentSize(a, len(sg.Content), sg.Size)
		}
		if end < a {
			return 0, errInitRange(a, end)
		}
		p, err := segProt(sg.Group, a)
		if err != nil {
			return 0, err
		}
		sc.prot = append(sc.prot, p)
		if sg.Group&sps.FinalizeLifetime != 0 {
			hasFL = true
			continue
		}
		if !hasStd {
			std, hasStd = span{a, end}, true
		} else {
			std.start, std.end = min(std.start, a), max(std.end, end)
		}
	}
	rec := all
	if hasStd {
		rec = std
	}

	// 2. Claim the range.
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return 0, fmt.Errorf("alloc: initialize: %w", ErrClosed)
	}
	res := m.findLocked(all.start, all.end, false)
	if res == nil {
		m.mu.Unlock()
		return 0, errInitRange(all.start, all.end)
	}
	// The claim (and the overlap check, with the stock's message) covers
	// every segment; at commit the record shrinks to the standard ones.
	if err := res.overlapLocked(all); err != nil {
		m.mu.Unlock()
		return 0, err
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
	m.mu.Unlock()

	// 3. Copy content and zero-fill, then protect (slab flushes the
	// instruction cache for executable segments).
	nprot := 0
	fail := func(err error) (sps.Addr, error) {
		res.wmu.Lock()
		m.resetProt(res, segs[:nprot])
		res.wmu.Unlock()
		m.mu.Lock()
		res.removeRegionLocked(g)
		unmap := res.endOpLocked()
		m.mu.Unlock()
		if unmap {
			err = errors.Join(err, m.unmap(res))
		}
		return 0, err
	}
	if err := m.fill(res, segs, sc, &nprot); err != nil {
		return fail(err)
	}

	// 4. Finalize actions, in order; on failure the collected deallocs
	// run in reverse and their errors are joined after the failure's.
	deallocs, cerrs, ferr := runFinalize(m.s, sc.buf, fr.Actions, sc.deallocs[:0], sc.errs[:0])
	sc.deallocs, sc.errs = deallocs, cerrs
	if ferr != nil {
		return fail(joinFirst(ferr, cerrs))
	}

	// 5. Record the region.
	m.mu.Lock()
	if res.dead {
		// Released while we ran: the stock fails here without undoing the
		// finalize actions. We undo them (the memory is about to go) and
		// report the stock's error.
		m.mu.Unlock()
		errs := runDealloc(m.s, sc.buf, deallocs, sc.errs[:0])
		sc.errs = errs
		return fail(joinFirst(errInitRange(all.start, all.end), errs))
	}
	g.pending = false
	g.start, g.end = rec.start, rec.end // inside the claim: the order is unchanged
	g.dealloc = copyCalls(deallocs)
	m.mu.Unlock()

	// 6. Give finalize-lifetime pages back.
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
	return sps.Addr(rec.start), nil
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

// ---- deinitialize ----

// Deinitialize runs the dealloc actions of the regions keyed by keys,
// processing keys from the last to the first (docs/protocol.md §5.1). Every key
// is processed; the failures are joined in processing order. As in the
// stock, the region record stays (a later overlapping initialize fails),
// protections are not reset and memory is not zeroed; a second
// deinitialize of the same key succeeds with nothing to run.
func (m *MemoryManager) Deinitialize(keys []sps.Addr) error {
	tok, err := enter(m.s, "deinitialize")
	if err != nil {
		return err
	}
	defer leave(&tok)
	b := getBuf()
	defer putBuf(b)
	var errs []error
	for i := len(keys) - 1; i >= 0; i-- {
		k := uint64(keys[i])
		m.mu.Lock()
		res := m.findLocked(k, k, true)
		if res == nil {
			m.mu.Unlock()
			errs = append(errs, errDeinitNoSlab(k))
			continue
		}
		g := res.regionAtLocked(k)
		if g == nil {
			m.mu.Unlock()
			errs = append(errs, errDeinitNoRegion(k))
			continue
		}
		calls := g.dealloc
		g.dealloc = nil
		pin := g.sealLocked()
		res.beginOpLocked()
		m.mu.Unlock()

		if pin != nil && !awaitPins([]*keepalive.Group{pin}, m.pinDeadline()) {
			errs = append(errs, &PinnedError{Op: "deinitialize", Addr: k, Wait: m.cfg.pinWait()})
			m.finishLater(res, calls, []*keepalive.Group{pin})
			continue
		}
		errs = runDealloc(m.s, b, calls, errs)
		errs = endOp(&m.mu, &res.lifetime, res, m.unmap, errs)
	}
	return errors.Join(errs...)
}

// ---- release ----

// Release releases the reservations whose bases are given, processing
// bases from the last to the first (docs/protocol.md §5.1): for each, the
// dealloc actions of all its regions are collected (regions in ascending
// address order, each region's list in order) and run in reverse, then
// the memory goes back to the arena. Every base is processed; failures are
// joined in processing order. Release of no bases succeeds. Memory is
// given back only after every action of the call has returned, and never
// while another operation still runs actions in it.
func (m *MemoryManager) Release(bases []sps.Addr) error {
	tok, err := enter(m.s, "release")
	if err != nil {
		return err
	}
	defer leave(&tok)
	return m.release(bases)
}

func (m *MemoryManager) release(bases []sps.Addr) error {
	b := getBuf()
	defer putBuf(b)
	var errs []error
	var doneBuf [4]*reservation
	done := doneBuf[:0]
	var (
		calls    []sps.WrapperCall
		pins     []*keepalive.Group
		deadline time.Time
	)
	for i := len(bases) - 1; i >= 0; i-- {
		base := uint64(bases[i])
		m.mu.Lock()
		res := m.findExactLocked(base)
		if res == nil {
			m.mu.Unlock()
			errs = append(errs, errReleaseNoSlab(m.s.Dialect().ReleaseUnknownBase, base))
			continue
		}
		calls, pins = calls[:0], pins[:0]
		for _, g := range res.regions {
			if !g.pending {
				calls = append(calls, g.dealloc...)
			}
			if pin := g.sealLocked(); pin != nil {
				pins = append(pins, pin)
			}
		}
		m.removeLocked(res)
		m.dying = append(m.dying, res)
		res.dead = true
		res.beginOpLocked()
		m.mu.Unlock()

		if len(pins) > 0 {
			if deadline.IsZero() && m.cfg.pinWait() > 0 {
				deadline = m.pinDeadline() // one wait for the whole call
			}
			if !awaitPins(pins, deadline) {
				errs = append(errs, &PinnedError{Op: "release", Addr: base, Wait: m.cfg.pinWait()})
				m.finishLater(res, calls, slices.Clone(pins))
				continue
			}
		}
		errs = runDealloc(m.s, b, calls, errs)
		done = append(done, res)
	}
	for _, res := range done {
		errs = endOp(&m.mu, &res.lifetime, res, m.unmap, errs)
	}
	return errors.Join(errs...)
}

// ---- Service ----

// OnDetach implements rt.Service: it does nothing (JIT'd code may keep
// running after the controller is gone).
func (m *MemoryManager) OnDetach(done func(), _ bool) { done() }

// OnShutdown implements rt.Service: it releases every remaining
// reservation, highest address first, running all outstanding dealloc
// actions (without a keepalive token: the group is closed and nothing
// else runs), closes the arenas and refuses later operations. Errors go
// to the Session's error reporter.
func (m *MemoryManager) OnShutdown(done func()) {
	defer done()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	bases := make([]sps.Addr, len(m.res))
	for i, r := range m.res {
		bases[i] = sps.Addr(r.base)
	}
	m.mu.Unlock()
	err := m.release(bases)
	if err != nil {
		m.s.ReportError(fmt.Errorf("alloc: releasing memory at shutdown: %w", err))
	}
	m.arenaMu.Lock()
	arenas := *m.arenas.Load()
	m.arenas.Store(new([]*slab.Slab))
	m.arenaMu.Unlock()
	closeArenas := func() {
		for _, a := range arenas {
			if err := a.Close(); err != nil {
				m.s.ReportError(fmt.Errorf("alloc: closing arena at shutdown: %w", err))
			}
		}
	}
	// Code that Go calls still run in is unmapped when they return, not
	// under them; the Session's shutdown does not wait for that.
	if err != nil && errors.As(err, new(*PinnedError)) {
		go func() {
			m.later.Wait()
			closeArenas()
		}()
		return
	}
	closeArenas()
}

// ---- introspection ----

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
