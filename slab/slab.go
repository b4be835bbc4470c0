package slab

import (
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"

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
	// native; New fails if the kernel lacks it.
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
