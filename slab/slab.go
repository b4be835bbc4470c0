package slab

import (
	"errors"
	"fmt"
	"math/bits"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/orcgo/orcrt/arch"
	"github.com/orcgo/orcrt/internal/sysmem"
)

// Sizes.
const (
	// DefaultSize is the arena size reserved when Config.Size is 0. It is
	// address space only: nothing is committed until reserved regions are
	// written.
	DefaultSize = 1 << 30
	// MaxNearSize is the largest arena Config.Near accepts: any two
	// addresses in it are within rel32 reach (plus a small addend).
	MaxNearSize = 2<<30 - 64<<10
	// DefaultMaxCached is the default bound on released-but-committed
	// memory kept for reuse.
	DefaultMaxCached = 64 << 20
)

// PrefaultMode selects how [Slab.Write] makes pages present before it
// copies content into them.
type PrefaultMode uint8

const (
	// PrefaultAuto uses madvise(MADV_POPULATE_WRITE) (Linux >= 5.14,
	// detected once per process) and falls back to PrefaultTouch.
	PrefaultAuto PrefaultMode = iota
	// PrefaultTouch writes one byte per not-yet-present page first.
	PrefaultTouch
	// PrefaultNone lets the copy itself take the page faults.
	PrefaultNone
)

// Config configures [New]. The zero value is a 1 GiB single-mapped arena.
type Config struct {
	// Size is the arena size in bytes (rounded up to pages); 0 means
	// DefaultSize. Every region the slab hands out lies inside it.
	Size uintptr
	// Near requires Size <= MaxNearSize, so every pair of addresses the
	// slab hands out is within rel32 reach of each other.
	Near bool
	// DualMap backs the arena with a memfd mapped twice: a writable view
	// for Write and an executable view whose addresses are handed out,
	// made executable by mapping the file again, never by mprotect.
	DualMap bool
	// MaxCached bounds the bytes of released regions kept committed (RW,
	// populated) for reuse; 0 means DefaultMaxCached. NoCache disables the
	// cache: released regions are decommitted at once.
	MaxCached uintptr
	NoCache   bool
	// Prefault selects the pre-fault strategy of Write.
	Prefault PrefaultMode
	// Name labels the memfd in DualMap mode (visible in /proc/self/maps).
	Name string
	// SyncCores makes every transition that adds execute also run
	// arch.SyncCores, for hosts whose threads jump into new code without
	// rt/native; New fails if the kernel lacks it.
	SyncCores bool
}

// Page-state byte layout (one per arena page, guarded by Slab.mu).
const (
	psProtMask  = 0x07 // the protection the kernel has for the page
	psPopulated = 0x08 // pages were populated and not decommitted since
	psUnknown   = 0x10 // the last protection syscall failed: state uncertain
)

// Slab is an executable-memory allocator over one reserved arena. See the
// package documentation. All methods are safe for concurrent use.
type Slab struct {
	mu     sync.Mutex
	closed bool

	base  uintptr // arena start: the addresses handed out (executable view)
	size  uintptr
	wbase uintptr // writable view (== base unless dual-mapped)
	fd    int     // memfd in dual-map mode, else -1
	dual  bool

	pageShift uint
	pageSize  uintptr
	npages    uintptr

	pages     []uint8         // page states (mapped by mapPageStates; nil once closed)
	execBits  []atomic.Uint64 // 1 bit per page: executable and handed out (lock-free reads)
	execWords uintptr         // execBits[:execWords] may be non-zero

	pagesMap, pagesMapLen uintptr // the mapping under pages

	free    freeList
	regions []*region // live regions sorted by base
	pool    []*region // recycled region records
	nextGen uint64

	livePages      uintptr
	cachedPages    uintptr
	maxCachedPages uintptr
	prefault       PrefaultMode
	syncCores      bool

	st struct {
		reserves, releases                    atomic.Uint64
		protects, madvises, maps, unmaps      atomic.Uint64
		populates, touches, decommits, flushs atomic.Uint64
		cacheHits                             atomic.Uint64
	}
}

// region is the record behind a Region handle.
type region struct {
	s       *Slab
	base    uintptr
	size    uintptr
	gen     uint64
	live    bool
	writers int32       // Writes in flight (guarded by s.mu)
	pk      *packRegion // non-nil when owned by a Packer
}

// Region is a handle to a page-granular range handed out by
// [Slab.Reserve]. It is a small value: copy it freely. A handle stays
// valid until the region is released; using it afterwards returns an
// error wrapping [ErrDoubleFree], even if the same addresses were handed
// out again (each reservation has its own generation).
type Region struct {
	base, size uintptr
	rec        *region
	gen        uint64
}

// Base returns the region's first address (page-aligned). In DualMap mode
// this is the executable view's address.
func (r Region) Base() uintptr { return r.base }

// Size returns the region's size in bytes (a page multiple).
func (r Region) Size() uintptr { return r.size }

// End returns Base()+Size().
func (r Region) End() uintptr { return r.base + r.size }

// IsZero reports whether r is the zero handle.
func (r Region) IsZero() bool { return r.rec == nil }

// liveSlabs counts slabs not yet closed, for leak checks in tests.
var liveSlabs atomic.Int64

// LiveSlabs returns the number of slabs created and not yet closed in this
// process (for leak checks in TestMain).
func LiveSlabs() int { return int(liveSlabs.Load()) }

// populateState remembers whether the kernel has MADV_POPULATE_WRITE:
// 0 unknown, 1 yes, 2 no (EINVAL seen once).
var populateState atomic.Int32

// PopulateSupported reports what Write learned about MADV_POPULATE_WRITE:
// known is false until the first populate was attempted.
func PopulateSupported() (supported, known bool) {
	switch populateState.Load() {
	case 1:
		return true, true
	case 2:
		return false, true
	}
	return false, false
}

// New reserves an arena and returns a Slab handing out memory from it.
// It fails with an error wrapping [ErrNotSupported] on systems without an
// implementation. The caller must call [Slab.Close].
func New(cfg Config) (*Slab, error) {
	if !sysmem.Supported {
		return nil, opErr("new", 0, 0, ErrNotSupported)
	}
	page := arch.PageSize()
	size := cfg.Size
	if size == 0 {
		size = DefaultSize
	}
	if size > ^uintptr(0)-page {
		return nil, opErr("new", 0, size, ErrBadSize)
	}
	size = (size + page - 1) &^ (page - 1)
	if cfg.Near && size > MaxNearSize {
		return nil, opErr("new", 0, size, fmt.Errorf("%w: Near arena of %#x bytes exceeds MaxNearSize (%#x)", ErrBadSize, size, uintptr(MaxNearSize)))
	}
	maxCached := cfg.MaxCached
	if maxCached == 0 {
		maxCached = DefaultMaxCached
	}
	if cfg.NoCache {
		maxCached = 0
	}
	s := &Slab{
		size:           size,
		fd:             -1,
		dual:           cfg.DualMap,
		pageShift:      uint(bits.TrailingZeros64(uint64(page))),
		pageSize:       page,
		npages:         size / page,
		maxCachedPages: maxCached / page,
		prefault:       cfg.Prefault,
		syncCores:      cfg.SyncCores,
	}
	if cfg.SyncCores {
		if err := arch.SyncCores(); err != nil {
			return nil, opErr("new", 0, size, fmt.Errorf("%w: %w", ErrNotSupported, err))
		}
	}
	var err error
	if err = s.mapArena(cfg.Name); err != nil {
		return nil, opErr("new", 0, size, err)
	}
	if s.pages, err = s.mapPageStates(); err != nil {
		_ = s.unmapArena()
		return nil, opErr("new", 0, size, err)
	}
	s.execBits = make([]atomic.Uint64, (s.npages+63)/64)
	s.free.insert(0, s.npages, false)
	liveSlabs.Add(1)
	register(s) // process-wide code lookups (ExecutableAt)
	return s, nil
}

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
// lies in (the executable view in DualMap mode).
func (s *Slab) Arena() (base, size uintptr) { return s.base, s.size }

// DualMapped reports whether the slab was created with Config.DualMap.
func (s *Slab) DualMapped() bool { return s.dual }

// PageSize returns the page size the slab works in.
func (s *Slab) PageSize() uintptr { return s.pageSize }

// Close unmaps the whole arena (and closes the memfd). No code in the
// slab may run, and no address from it be used, once Close starts. It
// fails with [ErrBusy] while a Write is copying; later calls return
// [ErrClosed]. An unclosed Slab stays mapped (there is no finalizer).
func (s *Slab) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return opErr("close", 0, 0, ErrClosed)
	}
	for _, r := range s.regions {
		if r.writers > 0 {
			return opErr("close", r.base, r.size, ErrBusy)
		}
	}
	s.closed = true
	unregister(s) // before the arena is unmapped and its range reusable
	for i := range s.execBits[:s.execWords] {
		s.execBits[i].Store(0)
	}
	var errs []error
	if err := s.unmapArena(); err != nil {
		errs = append(errs, err)
	}
	if err := sysmem.Munmap(s.pagesMap, s.pagesMapLen); err != nil {
		errs = append(errs, err)
	}
	s.pages = nil
	for _, r := range s.regions {
		r.live = false
	}
	s.regions = nil
	s.free = freeList{}
	s.livePages, s.cachedPages = 0, 0
	liveSlabs.Add(-1)
	if len(errs) > 0 {
		return opErr("close", s.base, s.size, errors.Join(errs...))
	}
	return nil
}

// Stats is a snapshot of a slab's counters. The system-call counters let
// tests assert exactly how many protection changes an operation made.
type Stats struct {
	Reserves, Releases uint64 // regions handed out / taken back
	CacheHits          uint64 // reservations served from released, still committed memory
	Protects           uint64 // mprotect calls plus MAP_FIXED re-maps that change protection
	Madvises           uint64 // madvise calls (populate, decommit)
	Maps, Unmaps       uint64 // mmap / munmap calls for the arena itself
	Populates          uint64 // MADV_POPULATE_WRITE calls
	Touches            uint64 // pages pre-faulted by touching
	Decommits          uint64 // spans whose memory was returned to the kernel
	Flushes            uint64 // instruction-cache flushes (FlushICache calls)

	LiveRegions int     // regions currently handed out
	LiveBytes   uintptr // bytes in live regions
	CachedBytes uintptr // released bytes kept committed for reuse
	FreeBytes   uintptr // free bytes (cached included)
}

// Stats returns a snapshot of the counters.
func (s *Slab) Stats() Stats {
	s.mu.Lock()
	live, liveP, cachedP, freeP := len(s.regions), s.livePages, s.cachedPages, s.free.freePages()
	s.mu.Unlock()
	return Stats{
		Reserves:    s.st.reserves.Load(),
		Releases:    s.st.releases.Load(),
		CacheHits:   s.st.cacheHits.Load(),
		Protects:    s.st.protects.Load(),
		Madvises:    s.st.madvises.Load(),
		Maps:        s.st.maps.Load(),
		Unmaps:      s.st.unmaps.Load(),
		Populates:   s.st.populates.Load(),
		Touches:     s.st.touches.Load(),
		Decommits:   s.st.decommits.Load(),
		Flushes:     s.st.flushs.Load(),
		LiveRegions: live,
		LiveBytes:   liveP << s.pageShift,
		CachedBytes: cachedP << s.pageShift,
		FreeBytes:   freeP << s.pageShift,
	}
}

// ---- address helpers ----

func (s *Slab) pageIndex(addr uintptr) uintptr { return (addr - s.base) >> s.pageShift }
func (s *Slab) pageAddr(i uintptr) uintptr     { return s.base + i<<s.pageShift }

// pageSpan returns the page indexes [lo, hi) covering [addr, addr+n), or
// ok=false if the range is empty, overflows or leaves the arena.
func (s *Slab) pageSpan(addr, n uintptr) (lo, hi uintptr, ok bool) {
	if n == 0 || addr < s.base || addr+n < addr || addr+n > s.base+s.size {
		return 0, 0, false
	}
	lo = (addr - s.base) >> s.pageShift
	hi = (addr - s.base + n + s.pageSize - 1) >> s.pageShift
	return lo, hi, true
}

// findLocked returns the live region containing [addr, addr+n).
func (s *Slab) findLocked(addr, n uintptr) *region {
	if n == 0 {
		n = 1
	}
	if addr+n < addr {
		return nil
	}
	i := sort.Search(len(s.regions), func(i int) bool { return s.regions[i].base > addr }) - 1
	if i < 0 {
		return nil
	}
	r := s.regions[i]
	if addr+n > r.base+r.size {
		return nil
	}
	return r
}

// checkHandleLocked validates a Region handle.
func (s *Slab) checkHandleLocked(op string, h Region) (*region, error) {
	switch {
	case h.rec == nil:
		return nil, opErr(op, h.base, h.size, ErrForeign)
	case h.rec.s != s:
		return nil, opErr(op, h.base, h.size, ErrForeign)
	case !h.rec.live || h.rec.gen != h.gen:
		return nil, opErr(op, h.base, h.size, ErrDoubleFree)
	}
	return h.rec, nil
}

func (s *Slab) handle(r *region) Region {
	return Region{base: r.base, size: r.size, rec: r, gen: r.gen}
}

// ---- exec bitmap (written under mu, read lock-free) ----

func (s *Slab) setExecBits(lo, hi uintptr, on bool) {
	for i := lo; i < hi; {
		w, b := i/64, i%64
		n := min(64-b, hi-i)
		var mask uint64 = ^uint64(0)
		if n < 64 {
			mask = (uint64(1)<<n - 1) << b
		}
		if on {
			s.execWords = max(s.execWords, w+1)
			s.execBits[w].Or(mask)
		} else {
			s.execBits[w].And(^mask)
		}
		i += n
	}
}

// IsExecutable reports, without a system call or lock, whether every byte
// of [addr, addr+n) (n == 0 counts as 1) is in pages this slab handed out
// that are executable now. The answer is a per-page snapshot; callers
// that jump to addr must keep the region alive by other means.
func (s *Slab) IsExecutable(addr, n uintptr) bool {
	if n == 0 {
		n = 1
	}
	lo, hi, ok := s.pageSpan(addr, n)
	if !ok {
		return false
	}
	for i := lo; i < hi; {
		w, b := i/64, i%64
		k := min(64-b, hi-i)
		var mask uint64 = ^uint64(0)
		if k < 64 {
			mask = (uint64(1)<<k - 1) << b
		}
		if s.execBits[w].Load()&mask != mask {
			return false
		}
		i += k
	}
	return true
}

// ---- raw transitions (mu held) ----

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

// ---- reserve / release ----

// Reserve hands out a read-write region of at least size bytes (rounded
// up to pages) with at most one system call. Contents are unspecified
// (recycled pages keep old bytes; Write zero-fills). Errors wrap
// [ErrBadSize], [ErrNoSpace] or [ErrClosed].
func (s *Slab) Reserve(size uintptr) (Region, error) {
	if size == 0 {
		return Region{}, opErr("reserve", 0, size, ErrBadSize)
	}
	if size > s.size {
		return Region{}, opErr("reserve", 0, size, fmt.Errorf("%w: request larger than the %#x-byte arena", ErrNoSpace, s.size))
	}
	n := (size + s.pageSize - 1) >> s.pageShift
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Region{}, opErr("reserve", 0, size, ErrClosed)
	}
	r, err := s.reserveLocked(n)
	if err != nil {
		return Region{}, opErr("reserve", 0, size, err)
	}
	return s.handle(r), nil
}

func (s *Slab) reserveLocked(n uintptr) (*region, error) {
	start, ok := s.free.take(n, true)
	if ok {
		s.cachedPages -= n
		s.st.cacheHits.Add(1)
	} else {
		start, ok = s.free.take(n, false)
		if !ok && s.cachedPages > 0 {
			if err := s.decommitCachedLocked(); err != nil {
				return nil, err
			}
			start, ok = s.free.take(n, false)
		}
		if !ok {
			return nil, fmt.Errorf("%w (%d pages wanted, %d free)", ErrNoSpace, n, s.free.freePages())
		}
		if err := s.protectRaw(start, start+n, ProtRW); err != nil {
			s.free.insert(start, n, false)
			return nil, err
		}
	}
	var r *region
	if k := len(s.pool); k > 0 {
		r = s.pool[k-1]
		s.pool = s.pool[:k-1]
	} else {
		r = &region{s: s}
	}
	s.nextGen++
	r.base, r.size, r.gen, r.live, r.writers, r.pk = s.pageAddr(start), n<<s.pageShift, s.nextGen, true, 0, nil
	i := sort.Search(len(s.regions), func(i int) bool { return s.regions[i].base > r.base })
	s.regions = append(s.regions, nil)
	copy(s.regions[i+1:], s.regions[i:])
	s.regions[i] = r
	s.livePages += n
	s.st.reserves.Add(1)
	return r, nil
}

// Release takes a region back: its pages stop being executable at once
// and are cached read-write or decommitted. Errors wrap [ErrDoubleFree],
// [ErrForeign] or [ErrBusy] (a Write in flight); after a failed system
// call the region is still released.
func (s *Slab) Release(h Region) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return opErr("release", h.base, h.size, ErrClosed)
	}
	r, err := s.checkHandleLocked("release", h)
	if err != nil {
		return err
	}
	if r.pk != nil {
		return opErr("release", h.base, h.size, fmt.Errorf("%w: region belongs to a Packer (free its blocks)", ErrForeign))
	}
	if r.writers > 0 {
		return opErr("release", h.base, h.size, ErrBusy)
	}
	if err := s.releaseLocked(r); err != nil {
		return opErr("release", h.base, h.size, err)
	}
	return nil
}

// ReleaseAt releases the live region whose base is exactly base (the
// address-keyed form the LLVM memory manager needs).
func (s *Slab) ReleaseAt(base uintptr) error {
	s.mu.Lock()
	r := s.findLocked(base, 1)
	s.mu.Unlock()
	if r == nil || r.base != base {
		return opErr("release", base, 0, fmt.Errorf("%w: no live region starts here", ErrNotMapped))
	}
	return s.Release(s.handle(r))
}

func (s *Slab) releaseLocked(r *region) error {
	lo, hi := s.pageIndex(r.base), s.pageIndex(r.base+r.size)
	i := sort.Search(len(s.regions), func(i int) bool { return s.regions[i].base >= r.base })
	s.regions = append(s.regions[:i], s.regions[i+1:]...)
	s.setExecBits(lo, hi, false)
	n := hi - lo
	s.livePages -= n
	var err error
	cached := false
	if s.cachedPages+n <= s.maxCachedPages {
		if !s.allProtLocked(lo, hi, ProtRW) {
			err = s.protectRaw(lo, hi, ProtRW)
		}
		cached = err == nil
	}
	if !cached {
		if err2 := s.decommitRaw(lo, hi); err2 != nil {
			err = errors.Join(err, err2)
		}
	}
	s.free.insert(lo, n, cached)
	if cached {
		s.cachedPages += n
	}
	r.live = false
	r.pk = nil
	s.pool = append(s.pool, r)
	s.st.releases.Add(1)
	return err
}

func (s *Slab) allProtLocked(lo, hi uintptr, p Prot) bool {
	for i := lo; i < hi; i++ {
		if s.pages[i]&(psProtMask|psUnknown) != uint8(p) {
			return false
		}
	}
	return true
}

// ---- lookup ----

// Lookup returns the live region containing all of [addr, addr+n)
// (n == 0 is treated as 1).
func (s *Slab) Lookup(addr, n uintptr) (Region, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Region{}, false
	}
	r := s.findLocked(addr, n)
	if r == nil {
		return Region{}, false
	}
	return s.handle(r), true
}

// Contains reports whether h is a live region of this slab.
func (s *Slab) Contains(h Region) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.checkHandleLocked("contains", h)
	return err == nil && !s.closed
}

// ---- protect ----

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

// ---- write ----

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
	r.writers++
	s.mu.Unlock()

	err := s.fill(addr, src, size, popLo, popHi)

	s.mu.Lock()
	r.writers--
	if err == nil && popLo < popHi && !s.closed {
		for i := popLo; i < popHi; i++ {
			s.pages[i] |= psPopulated
		}
	}
	s.mu.Unlock()
	if err != nil {
		return opErr("write", addr, size, err)
	}
	return nil
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
