package alloc

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/dialect"
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

	dropped atomic.Uint64 // finalize-lifetime pages given back
	scratch scratchPool[initScratch, *initScratch]
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
		reserve := symbols[1].Addr
		initialize, deinitialize, release := wrapper(initializeWrapper), wrapper(deinitializeWrapper), wrapper(releaseWrapper)
		symbols = append(symbols,
			rt.Symbol{Name: MemoryManagerInitializeName, Addr: initialize},
			rt.Symbol{Name: MemoryManagerDeinitializeName, Addr: deinitialize},
			rt.Symbol{Name: MemoryManagerReleaseName, Addr: release})
		if s.Dialect().NativeMemoryMap {
			symbols = append(symbols,
				rt.Symbol{Name: NativeMemoryMapInstanceName, Addr: inst},
				rt.Symbol{Name: NativeMemoryMapReserveName, Addr: reserve},
				rt.Symbol{Name: NativeMemoryMapInitializeName, Addr: initialize},
				rt.Symbol{Name: NativeMemoryMapDeinitializeMultipleName, Addr: deinitialize},
				rt.Symbol{Name: NativeMemoryMapReleaseMultipleName, Addr: release})
		}
	}
	m.inst = inst
	if err := publish(s, syms, m, inst, "memory manager", symbols...); err != nil {
		return nil, err
	}
	return m, nil
}

// InstanceAddr returns the address Register published as
// MemoryManagerInstanceName (0 if the manager was not registered).
func (m *MemoryManager) InstanceAddr() sps.Addr { return m.inst }

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
	bases, ok := markClosed(&m.mu, &m.closed, func() []sps.Addr {
		bases := make([]sps.Addr, len(m.res))
		for i, r := range m.res {
			bases[i] = sps.Addr(r.base)
		}
		return bases
	})
	if !ok {
		return
	}
	// Without a keepalive token: the group is closed.
	err := withOp(nil, "", func(b *resultBuf) error { return m.release(b, bases) })
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
