package alloc

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/orcgo/orcrt/arch"
	"github.com/orcgo/orcrt/internal/sysmem"
	"github.com/orcgo/orcrt/native/jitsyms"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/keepalive"
	"github.com/orcgo/orcrt/sps"
)

// shmDir is where glibc's shm_open keeps POSIX shared-memory objects on
// Linux: shm_open("/jitlink_1_2") opens /dev/shm/jitlink_1_2.
const shmDir = "/dev/shm"

// shmCounter numbers shared-memory objects process-wide (the stock's
// SharedMemoryCount, pre-incremented, so the first name ends in _1), so
// several mappers in one process never collide.
var shmCounter atomic.Uint64

// SharedMemoryMapper is LLVM 22's ExecutorSharedMemoryMapperService, the
// executor half of llvm-jitlink -use-memmgr=shared: the controller, on the
// same machine, maps the reserved memory itself through a POSIX
// shared-memory object and writes content and zero-fill there; the
// executor only sets protections and runs allocation actions.
//
// The wire behaviour is docs/protocol.md §5.6. Release (and shutdown)
// also remove the object if the controller never unlinked it. The
// executor view is never writable and executable. Go calls into an
// allocation pin it ([SharedMemoryMapper.Pin]) as they pin the memory
// manager's regions: deinitialize and release wait for them. All methods
// are safe for concurrent use.
type SharedMemoryMapper struct {
	s    *rt.Session
	inst sps.Addr

	mu     sync.Mutex
	closed bool
	res    map[uint64]*shmReservation
	dying  map[uint64]*shmReservation // released, still mapped for Go calls
	allocs map[uint64]*shmAlloc

	scratch scratchPool[shmScratch, *shmScratch]
	pinWait time.Duration  // 0: DefaultPinWait; negative: for ever
	later   sync.WaitGroup // releases waiting for pins past pinWait
}

type shmReservation struct {
	base, size uint64
	mapLen     uintptr
	name       string
	allocs     []uint64 // allocation keys in initialization order
	lifetime
}

type shmAlloc struct {
	res        *shmReservation
	start, end uint64 // the span of its segments
	exec       []span // its executable segments
	pending    bool
	pin        *keepalive.Group // Go calls into it, created on first Pin
	dealloc    []sps.WrapperCall
}

// sealLocked refuses later calls into al (it is no longer in m.allocs,
// so no new pins either) and returns its pin, closed, or nil.
func (al *shmAlloc) sealLocked() *keepalive.Group {
	if al.pin != nil {
		al.pin.Close()
	}
	return al.pin
}

type shmScratch struct {
	fr   sps.SharedFinalizeRequest
	exec []span // the executable segments of the request being initialized
	actionScratch
}

func (sc *shmScratch) reset() {
	sc.actionScratch.reset()
	sc.exec = nil
	clear(sc.fr.Segments)
	clear(sc.fr.Actions)
	sc.fr.Segments, sc.fr.Actions = sc.fr.Segments[:0], sc.fr.Actions[:0]
}

// NewSharedMemoryMapper returns an unregistered mapper for s;
// RegisterSharedMemoryMapper is the usual constructor. Add it to s as a
// Service so its mappings are released at shutdown.
func NewSharedMemoryMapper(s *rt.Session) (*SharedMemoryMapper, error) {
	if s == nil {
		return nil, errors.New("alloc: NewSharedMemoryMapper: nil Session")
	}
	return &SharedMemoryMapper{s: s, res: map[uint64]*shmReservation{}, dying: map[uint64]*shmReservation{}, allocs: map[uint64]*shmAlloc{}}, nil
}

// RegisterSharedMemoryMapper creates a SharedMemoryMapper for s, registers
// it and its four wrapper functions on s, adds the five optional LLVM 22
// bootstrap symbols (SharedMapperInstanceName, ...Reserve, ...Initialize,
// ...Deinitialize, ...Release) to syms all-or-nothing, and adds the mapper
// to s as a Service.
func RegisterSharedMemoryMapper(s *rt.Session, syms *rt.SymbolTable) (*SharedMemoryMapper, error) {
	m, err := NewSharedMemoryMapper(s)
	if err != nil {
		return nil, err
	}
	inst := s.RegisterInstance(m)
	m.inst = inst
	err = publish(s, syms, m, inst, "shared-memory mapper",
		rt.Symbol{Name: SharedMapperInstanceName, Addr: inst},
		rt.Symbol{Name: SharedMapperReserveName, Addr: s.RegisterWrapper(shmReserveWrapper, rt.BorrowArgs)},
		rt.Symbol{Name: SharedMapperInitializeName, Addr: s.RegisterWrapper(shmInitializeWrapper, rt.BorrowArgs)},
		rt.Symbol{Name: SharedMapperDeinitializeName, Addr: s.RegisterWrapper(shmDeinitializeWrapper, rt.BorrowArgs)},
		rt.Symbol{Name: SharedMapperReleaseName, Addr: s.RegisterWrapper(shmReleaseWrapper, rt.BorrowArgs)},
	)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// InstanceAddr returns the address published as SharedMapperInstanceName
// (0 if the mapper was not registered).
func (m *SharedMemoryMapper) InstanceAddr() sps.Addr { return m.inst }

// Holds reports whether a lies in one of the mapper's reservations that
// the controller has not begun to release.
func (m *SharedMemoryMapper) Holds(a sps.Addr) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	for _, r := range m.res {
		if uint64(a)-r.base < r.size {
			return true
		}
	}
	return false
}

// SetPinWait sets how long a deinitialize or release waits for Go calls
// into the memory it frees (0: DefaultPinWait; negative: for ever, as
// Config.PinWait).
func (m *SharedMemoryMapper) SetPinWait(d time.Duration) {
	m.mu.Lock()
	m.pinWait = d
	m.mu.Unlock()
}

// Pin returns the keepalive group pinning the initialized allocation
// that holds addr, as MemoryManager.Pin does for its regions: a token of
// it keeps the allocation's deinitialize or release waiting. It fails
// with ErrNotAllocated outside every reservation, and with ErrUnpinnable
// inside one where no live allocation holds addr.
func (m *SharedMemoryMapper) Pin(addr sps.Addr) (*keepalive.Group, error) {
	pin, _, err := m.pin(addr)
	return pin, err
}

// PinCode is Pin that also reports whether addr lies in one of the
// allocation's executable segments, as the mapper protected them.
func (m *SharedMemoryMapper) PinCode(addr sps.Addr) (pin *keepalive.Group, code bool, err error) {
	return m.pin(addr)
}

func (m *SharedMemoryMapper) pin(addr sps.Addr) (*keepalive.Group, bool, error) {
	a := uint64(addr)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, false, fmt.Errorf("alloc: pin %#x: %w", a, ErrClosed)
	}
	for _, al := range m.allocs {
		if a < al.start || a >= al.end || al.pending {
			continue
		}
		if al.pin == nil {
			al.pin = keepalive.New()
		}
		code := false
		for _, x := range al.exec {
			code = code || x.start <= a && a < x.end
		}
		return al.pin, code, nil
	}
	for _, rs := range []map[uint64]*shmReservation{m.res, m.dying} {
		for _, r := range rs {
			if a-r.base < r.size {
				return nil, false, fmt.Errorf("alloc: pin %#x: %w", a, ErrUnpinnable)
			}
		}
	}
	return nil, false, ErrNotAllocated
}

// pinDeadline is the deadline of a wait for pins starting now.
func (m *SharedMemoryMapper) pinDeadline() (time.Time, time.Duration) {
	m.mu.Lock()
	d := m.pinWait
	m.mu.Unlock()
	if d == 0 {
		d = DefaultPinWait
	}
	if d < 0 {
		return time.Time{}, d
	}
	return time.Now().Add(d), d
}

// Reserve creates and maps a shared-memory object of size bytes and
// returns the executor address of the mapping and the object's name (as
// shm_open takes it, with a leading slash). Failures are reported with
// strerror's text, as the stock reports them (for example size 0 gives
// mmap's "Invalid argument"); nothing is left behind on failure.
func (m *SharedMemoryMapper) Reserve(size uint64) (sps.Addr, string, error) {
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return 0, "", fmt.Errorf("alloc: shared memory reserve: %w", ErrClosed)
	}
	if size > math.MaxInt64 {
		return 0, "", strerror(syscall.EINVAL)
	}
	var (
		f    *os.File
		name string
		err  error
	)
	for range 16 { // a stale object from an earlier process with our pid: try the next name
		name = fmt.Sprintf("/jitlink_%d_%d", os.Getpid(), shmCounter.Add(1))
		f, err = createShm(shmDir + name)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return 0, "", strerror(err)
	}
	cleanup := func() {
		_ = f.Close()
		_ = os.Remove(shmDir + name)
	}
	if err := f.Truncate(int64(size)); err != nil {
		cleanup()
		return 0, "", strerror(err)
	}
	addr, err := sysmem.Mmap(0, uintptr(size), sysmem.ProtNone, sysmem.MapShared, int(f.Fd()), 0)
	if err != nil {
		cleanup()
		return 0, "", strerror(err)
	}
	if err := f.Close(); err != nil {
		_ = sysmem.Munmap(addr, uintptr(size))
		_ = os.Remove(shmDir + name)
		return 0, "", strerror(err)
	}
	page := uint64(sysmem.PageSize())
	r := &shmReservation{base: uint64(addr), size: size, mapLen: uintptr((size + page - 1) &^ (page - 1)), name: name}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		_ = m.unmap(r)
		return 0, "", fmt.Errorf("alloc: shared memory reserve: %w", ErrClosed)
	}
	m.res[r.base] = r
	m.mu.Unlock()
	return sps.Addr(addr), name, nil
}

// Initialize protects fr's segments, which the controller has already
// filled through its view, and runs fr's allocation actions; it returns
// the allocation's key, the lowest segment address (0xffffffffffffffff
// for a request without segments, as the stock). Protections are applied
// with one mprotect per segment exactly as given (an unaligned address
// fails with "Invalid argument", as in the stock), the instruction cache
// is flushed for executable segments, and nothing is undone when an
// action fails (the stock undoes nothing either; the failing finalize's
// collected deallocs do run, in reverse). The reservation, the segments'
// bounds, an already initialized key and W|X are checked before anything
// is protected or run (RATIONALE.md, "alloc").
func (m *SharedMemoryMapper) Initialize(reservation sps.Addr, fr *sps.SharedFinalizeRequest) (sps.Addr, error) {
	sc := m.scratch.get()
	defer m.scratch.put(sc)
	return m.initializeWith(reservation, fr, sc)
}

func (m *SharedMemoryMapper) initializeWith(reservation sps.Addr, fr *sps.SharedFinalizeRequest, sc *shmScratch) (sps.Addr, error) {
	o, err := enter(m.s, "shared memory initialize")
	if err != nil {
		return 0, err
	}
	defer o.end()
	res, al, key, err := m.claim(reservation, fr.Segments)
	if err != nil {
		return 0, err
	}
	for _, sg := range fr.Segments {
		p, _ := segProt(sg.Group, uint64(sg.Addr))
		if err := sysmem.Mprotect(uintptr(sg.Addr), uintptr(sg.Size), int(p)); err != nil {
			return 0, m.abandon(res, key, strerror(err))
		}
		if p&sysmem.ProtExec != 0 && sg.Size != 0 {
			arch.FlushICache(uintptr(sg.Addr), uintptr(sg.Size))
			sc.exec = append(sc.exec, span{uint64(sg.Addr), uint64(sg.Addr) + sg.Size})
		}
	}
	deallocs, cerrs, ferr := runFinalize(m.s, sc.buf, fr.Actions, sc.deallocs[:0], sc.errs[:0])
	sc.deallocs, sc.errs = deallocs, cerrs
	if ferr != nil {
		return 0, m.abandon(res, key, joinFirst(ferr, cerrs))
	}
	if err := m.record(res, al, key, sc); err != nil {
		return 0, m.abandon(res, key, err)
	}
	return sps.Addr(key), nil
}

// claim checks segs (W|X, inside the reservation, a new key) and claims
// the allocation's key with a pending record; the op begins in res.
func (m *SharedMemoryMapper) claim(reservation sps.Addr, segs []sps.SharedSegFinalizeRequest) (*shmReservation, *shmAlloc, uint64, error) {
	key, end := ^uint64(0), uint64(0)
	for _, sg := range segs {
		a := uint64(sg.Addr)
		key, end = min(key, a), max(end, a+sg.Size)
		if _, err := segProt(sg.Group, a); err != nil {
			return nil, nil, 0, err
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, nil, 0, fmt.Errorf("alloc: shared memory initialize: %w", ErrClosed)
	}
	res := m.res[uint64(reservation)]
	if res == nil {
		return nil, nil, 0, fmt.Errorf("alloc: shared memory initialize: %#x is not a reservation of this mapper", uint64(reservation))
	}
	for _, sg := range segs {
		a, end := uint64(sg.Addr), uint64(sg.Addr)+sg.Size
		if end < a || a < res.base || end > res.base+res.size {
			return nil, nil, 0, fmt.Errorf("alloc: shared memory initialize: segment %#x -- %#x is not inside reservation %#x -- %#x", a, end, res.base, res.base+res.size)
		}
	}
	if m.allocs[key] != nil {
		return nil, nil, 0, fmt.Errorf("alloc: shared memory initialize: allocation %#x is already initialized", key)
	}
	al := &shmAlloc{res: res, start: key, end: end, pending: true}
	m.allocs[key] = al
	res.beginOpLocked()
	return res, al, key, nil
}

// abandon forgets a claimed allocation after err and ends the op
// (protections stay, as in the stock).
func (m *SharedMemoryMapper) abandon(res *shmReservation, key uint64, err error) error {
	return abandonOp(&m.mu, res, m.unmap, func() { delete(m.allocs, key) }, err)
}

// record makes the claim an allocation with a copy of the deallocs and
// ends the op; if res was released meanwhile the deallocs run instead.
func (m *SharedMemoryMapper) record(res *shmReservation, al *shmAlloc, key uint64, sc *shmScratch) error {
	m.mu.Lock()
	if res.dead {
		m.mu.Unlock()
		return sc.undo(m.s, fmt.Errorf("alloc: shared memory initialize: reservation %#x was released meanwhile", res.base))
	}
	al.exec = sc.exec
	sc.exec = nil
	al.dealloc = copyCalls(sc.deallocs)
	al.pending = false
	res.allocs = append(res.allocs, key)
	unmap := res.endOpLocked()
	m.mu.Unlock()
	if unmap {
		m.s.ReportError(m.unmap(res))
	}
	return nil
}

// Release releases the reservations at bases, in the given order (the
// stock's order): each one's allocations are deinitialized (the last
// initialized first, each one's deallocs in reverse), then the mapping is
// removed and the shared-memory object deleted if it still exists.
// Failures are joined; an unknown base fails with "Invalid argument"
// (the stock's munmap of an unrecorded, zero-sized range). Mappings are
// removed only after every action of the call has returned.
func (m *SharedMemoryMapper) Release(bases []sps.Addr) error {
	return withOp(m.s, "shared memory release", func(b *resultBuf) error { return m.release(b, bases) })
}

func (m *SharedMemoryMapper) release(b *resultBuf, bases []sps.Addr) error {
	var errs []error
	var done []*shmReservation
	var deadline time.Time
	var wait time.Duration
	for _, base := range bases {
		m.mu.Lock()
		res := m.res[uint64(base)]
		if res == nil {
			m.mu.Unlock()
			errs = append(errs, strerror(syscall.EINVAL))
			continue
		}
		delete(m.res, uint64(base))
		m.dying[res.base] = res
		res.dead = true
		res.beginOpLocked()
		keys := res.allocs
		res.allocs = nil
		var lists [][]sps.WrapperCall
		var pins []*keepalive.Group
		for j := len(keys) - 1; j >= 0; j-- {
			if al := m.allocs[keys[j]]; al != nil {
				delete(m.allocs, keys[j])
				lists = append(lists, al.dealloc)
				if pin := al.sealLocked(); pin != nil {
					pins = append(pins, pin)
				}
			}
		}
		m.mu.Unlock()
		if len(pins) > 0 {
			if deadline.IsZero() {
				deadline, wait = m.pinDeadline() // one wait for the whole call
			}
			if !awaitPins(pins, deadline) {
				errs = append(errs, &PinnedError{Op: "release", Addr: uint64(base), Wait: wait})
				m.finishLater(res, lists, pins)
				continue
			}
		}
		for _, l := range lists {
			errs = runDealloc(m.s, b, l, errs)
		}
		done = append(done, res)
	}
	return endOps(&m.mu, done, m.unmap, errs)
}

// finishLater runs lists of dealloc actions and then ends the operation
// on res once every pin has completed: a release or deinitialize whose
// wait for Go calls timed out.
func (m *SharedMemoryMapper) finishLater(res *shmReservation, lists [][]sps.WrapperCall, pins []*keepalive.Group) {
	m.later.Add(1)
	go func() {
		defer m.later.Done()
		awaitPins(pins, time.Time{})
		// Without a token: the op that began the release has ended.
		err := withOp(nil, "", func(b *resultBuf) error {
			var errs []error
			for _, l := range lists {
				errs = runDealloc(m.s, b, l, errs)
			}
			return errors.Join(endOp(&m.mu, res, m.unmap, errs)...)
		})
		if err != nil {
			m.s.ReportError(fmt.Errorf("alloc: finishing a shared memory release delayed by Go calls: %w", err))
		}
	}()
}

// Deinitialize runs the dealloc actions of the allocations keyed by
// bases, from the last key to the first, and forgets them; failures are
// joined. Unknown keys are ignored, as the stock ignores them.
// Protections are not reset (as in the stock).
func (m *SharedMemoryMapper) Deinitialize(bases []sps.Addr) error {
	return withOp(m.s, "shared memory deinitialize", func(b *resultBuf) error { return m.deinitialize(b, bases) })
}

func (m *SharedMemoryMapper) deinitialize(b *resultBuf, bases []sps.Addr) error {
	var errs []error
	for i := len(bases) - 1; i >= 0; i-- {
		k := uint64(bases[i])
		m.mu.Lock()
		al := m.allocs[k]
		if al == nil || al.pending {
			m.mu.Unlock()
			continue
		}
		delete(m.allocs, k)
		res := al.res
		for j, x := range res.allocs {
			if x == k {
				res.allocs = append(res.allocs[:j], res.allocs[j+1:]...)
				break
			}
		}
		res.beginOpLocked()
		pin := al.sealLocked()
		m.mu.Unlock()

		if pin != nil {
			deadline, wait := m.pinDeadline()
			if !awaitPins([]*keepalive.Group{pin}, deadline) {
				errs = append(errs, &PinnedError{Op: "deinitialize", Addr: k, Wait: wait})
				m.finishLater(res, [][]sps.WrapperCall{al.dealloc}, []*keepalive.Group{pin})
				continue
			}
		}
		errs = runDealloc(m.s, b, al.dealloc, errs)
		// Before the controller can reuse the range: the names are the
		// released code's, not the next code's.
		jitsyms.RemoveRange(al.start, al.end)
		errs = endOp(&m.mu, res, m.unmap, errs)
	}
	return errors.Join(errs...)
}

// unmap removes a dead reservation's mapping and its object, if the
// controller has not unlinked it.
func (m *SharedMemoryMapper) unmap(r *shmReservation) error {
	m.mu.Lock()
	delete(m.dying, r.base)
	m.mu.Unlock()
	jitsyms.RemoveRange(uint64(r.base), uint64(r.base)+uint64(r.mapLen))
	var errs []error
	if err := sysmem.Munmap(uintptr(r.base), r.mapLen); err != nil {
		errs = append(errs, strerror(err))
	}
	if err := os.Remove(shmDir + r.name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, fmt.Errorf("alloc: removing shared-memory object %s: %w", r.name, err))
	}
	return errors.Join(errs...)
}

// OnDetach implements rt.Service: it does nothing.
func (m *SharedMemoryMapper) OnDetach(done func(), _ bool) { done() }

// OnShutdown implements rt.Service: it releases every remaining
// reservation (highest address first), running outstanding dealloc
// actions, and refuses later operations. Errors go to the Session's
// reporter.
func (m *SharedMemoryMapper) OnShutdown(done func()) {
	defer done()
	bases, ok := markClosed(&m.mu, &m.closed, func() []sps.Addr {
		bases := make([]sps.Addr, 0, len(m.res))
		for b := range m.res {
			bases = append(bases, sps.Addr(b))
		}
		return bases
	})
	if !ok {
		return
	}
	sort.Slice(bases, func(i, j int) bool { return bases[i] > bases[j] })
	// Without a keepalive token: the group is closed.
	if err := withOp(nil, "", func(b *resultBuf) error { return m.release(b, bases) }); err != nil {
		m.s.ReportError(fmt.Errorf("alloc: releasing shared memory at shutdown: %w", err))
	}
}
