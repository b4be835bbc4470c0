//go:build cgo && (amd64 || arm64)

package allocbench

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/orcgo/orcrt/alloc"
	"github.com/orcgo/orcrt/internal/cmem"
	"github.com/orcgo/orcrt/internal/sysmem"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/slab"
	"github.com/orcgo/orcrt/sps"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 && slab.LiveSlabs() != 0 {
		fmt.Fprintf(os.Stderr, "allocbench: %d slab arenas leaked\n", slab.LiveSlabs())
		code = 1
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// fixture is a Session with a registered memory manager and the no-op
// action placed in R-X memory it finalized.
type fixture struct {
	s    *rt.Session
	mm   *alloc.MemoryManager
	syms *rt.SymbolTable
	noop sps.Addr
}

func newFixture(tb testing.TB) *fixture {
	tb.Helper()
	info, err := rt.DetectProcessInfo()
	if err != nil {
		tb.Fatal(err)
	}
	run := rt.NewGoRunner(0)
	f := &fixture{s: rt.NewSession(info, run, nil), syms: rt.NewSymbolTable()}
	tb.Cleanup(func() {
		f.s.Close()
		run.Close()
	})
	if f.mm, err = alloc.Register(f.s, f.syms, alloc.Config{}); err != nil {
		tb.Fatal(err)
	}
	base, err := f.mm.Reserve(uint64(len(noop)))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := f.mm.Initialize(&sps.FinalizeRequest{Segments: []sps.SegFinalizeRequest{
		{Group: sps.Read | sps.Exec, Addr: base, Size: uint64(len(noop)), Content: noop},
	}}); err != nil {
		tb.Fatal(err)
	}
	f.noop = base
	return f
}

func (f *fixture) wrapper(tb testing.TB, name string) rt.WrapperFunc {
	a, ok := f.syms.Lookup(name)
	if !ok {
		tb.Fatalf("%s not registered", name)
	}
	fn, ok := f.s.LookupWrapper(a)
	if !ok {
		tb.Fatalf("%s is not a wrapper", name)
	}
	return fn
}

// ---- allocation actions ----

// actionsRegions walks 64-byte read-write regions of a 4 MiB reservation,
// each initialized with n no-op action pairs and deinitialized; a fresh
// reservation is taken (outside the timer) when one is used up.
type actionsRegions struct {
	f     *fixture
	base  sps.Addr
	next  int
	fr    sps.FinalizeRequest
	keys  []sps.Addr
	slots int
}

const regionSize, resSize = 64, 4 << 20

func newActionsRegions(tb testing.TB, f *fixture, n int) *actionsRegions {
	a := &actionsRegions{f: f, slots: resSize / regionSize, keys: make([]sps.Addr, 1)}
	nop := sps.WrapperCall{Fn: f.noop, Args: []byte{}}
	for range n {
		a.fr.Actions = append(a.fr.Actions, sps.ActionPair{Finalize: nop, Dealloc: nop})
	}
	a.fr.Segments = []sps.SegFinalizeRequest{{Group: sps.Read | sps.Write, Size: regionSize, Content: []byte("data")}}
	a.renew(tb)
	return a
}

func (a *actionsRegions) renew(tb testing.TB) {
	if a.base != 0 {
		if err := a.f.mm.Release([]sps.Addr{a.base}); err != nil {
			tb.Fatal(err)
		}
	}
	var err error
	if a.base, err = a.f.mm.Reserve(resSize); err != nil {
		tb.Fatal(err)
	}
	a.next = 0
}

// cycle initializes the next region (n finalize actions) and
// deinitializes it (n dealloc actions).
func (a *actionsRegions) cycle(tb testing.TB) {
	k := a.base + sps.Addr(a.next*regionSize)
	a.next++
	a.fr.Segments[0].Addr = k
	if _, err := a.f.mm.Initialize(&a.fr); err != nil {
		tb.Fatal(err)
	}
	a.keys[0] = k
	if err := a.f.mm.Deinitialize(a.keys); err != nil {
		tb.Fatal(err)
	}
}

func BenchmarkAllocActions(b *testing.B) {
	const n = 4
	b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
		f := newFixture(b)
		a := newActionsRegions(b, f, n)
		b.ReportAllocs()
		for b.Loop() {
			if a.next == a.slots {
				b.StopTimer()
				a.renew(b)
				b.StartTimer()
			}
			a.cycle(b)
		}
	})
	b.Run(fmt.Sprintf("op=run/n=%d", n), func(b *testing.B) {
		f := newFixture(b)
		calls := make([]sps.WrapperCall, n)
		for i := range calls {
			calls[i] = sps.WrapperCall{Fn: f.noop, Args: []byte{}}
		}
		r := alloc.Runner{Session: f.s}
		b.ReportAllocs()
		for b.Loop() {
			if err := r.RunDeallocActions(calls, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(fmt.Sprintf("ref=cgo-empty/n=%d", n), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for range n {
				cmem.CallEmpty()
			}
		}
	})
}

// ---- the memory-manager cycle ----

// allocCycle is llvm-jitlink's per-link-graph cycle through the wrapper
// functions: reserve 32 KiB, initialize 8 KiB R + 8 KiB RW + 16 KiB R-X
// (EPCGenericJITLinkMemoryManager's layout order), release. The argument
// buffers are encoded once and only the addresses patched per cycle: our
// wrappers keep nothing of their arguments after returning.
type allocCycle struct {
	reserve, initialize, release rt.WrapperFunc
	s                            *rt.Session
	resArgs, initArgs, relArgs   []byte
	addrOffs                     []int // offsets of the three segment addresses in initArgs
	res                          rt.WrapperResult
	ret                          rt.ReturnFunc
}

const cycleSize = 32 << 10

func newAllocCycle(tb testing.TB, f *fixture) *allocCycle {
	inst := f.mm.InstanceAddr()
	c := &allocCycle{
		reserve:    f.wrapper(tb, alloc.MemoryManagerReserveName),
		initialize: f.wrapper(tb, alloc.MemoryManagerInitializeName),
		release:    f.wrapper(tb, alloc.MemoryManagerReleaseName),
		s:          f.s,
		resArgs:    sps.MemoryManagerReserve.AppendArgs(nil, inst, cycleSize),
		relArgs:    sps.MemoryManagerRelease.AppendArgs(nil, inst, []sps.Addr{0}),
	}
	c.ret = func(r rt.WrapperResult) { c.res = r }
	code := bytes.Repeat(noop, 16<<10/len(noop))
	rodata := bytes.Repeat([]byte("rodata.."), 6<<10/8)
	data := bytes.Repeat([]byte("data...."), 1<<10/8)
	segs := []sps.SegFinalizeRequest{
		{Group: sps.Read, Addr: 0, Size: 8 << 10, Content: rodata},
		{Group: sps.Read | sps.Write, Addr: 8 << 10, Size: 8 << 10, Content: data},
		{Group: sps.Read | sps.Exec, Addr: 16 << 10, Size: 16 << 10, Content: code},
	}
	c.initArgs = sps.MemoryManagerInitialize.AppendArgs(nil, inst, sps.FinalizeRequest{Segments: segs})
	off := 16 // instance, segment count
	for _, s := range segs {
		c.addrOffs = append(c.addrOffs, off+1)
		off += 1 + 8 + 8 + 8 + len(s.Content)
	}
	return c
}

func (c *allocCycle) run(tb testing.TB) {
	c.reserve(c.s, c.resArgs, c.ret)
	if c.res.Size() != 9 || c.res.Bytes()[0] != 1 {
		tb.Fatalf("reserve: %q", c.res.Bytes())
	}
	base := binary.LittleEndian.Uint64(c.res.Bytes()[1:])
	for i, off := range c.addrOffs {
		binary.LittleEndian.PutUint64(c.initArgs[off:], base+uint64(i)*8<<10)
	}
	c.initialize(c.s, c.initArgs, c.ret)
	if c.res.Size() != 9 || c.res.Bytes()[0] != 1 {
		tb.Fatalf("initialize: %q", c.res.Bytes())
	}
	binary.LittleEndian.PutUint64(c.relArgs[16:], base)
	c.release(c.s, c.relArgs, c.ret)
	if c.res.Size() != 1 || c.res.Bytes()[0] != 0 {
		tb.Fatalf("release: %q", c.res.Bytes())
	}
}

func BenchmarkMemoryManager(b *testing.B) {
	b.Run("op=alloc-cycle", func(b *testing.B) {
		f := newFixture(b)
		c := newAllocCycle(b, f)
		b.SetBytes(cycleSize)
		b.ReportAllocs()
		for b.Loop() {
			c.run(b)
		}
	})
	// The stock executor's system calls for the same cycle: a fresh
	// private mapping each time (so fresh page faults), copy, zero-fill,
	// two mprotects (the RW segment keeps its protection), munmap.
	b.Run("ref=stock-syscalls", func(b *testing.B) {
		code := bytes.Repeat(noop, 16<<10/len(noop))
		rodata := bytes.Repeat([]byte("rodata.."), 6<<10/8)
		data := bytes.Repeat([]byte("data...."), 1<<10/8)
		b.SetBytes(cycleSize)
		b.ReportAllocs()
		for b.Loop() {
			p, err := sysmem.Mmap(0, cycleSize, sysmem.ProtRead|sysmem.ProtWrite, sysmem.MapPrivate|sysmem.MapAnonymous, -1, 0)
			if err != nil {
				b.Fatal(err)
			}
			m := sysmem.View(p, cycleSize)
			clear(m[copy(m, rodata) : 8<<10])
			clear(m[8<<10+copy(m[8<<10:], data) : 16<<10])
			clear(m[16<<10+copy(m[16<<10:], code):])
			if err := sysmem.Mprotect(p, 8<<10, sysmem.ProtRead); err != nil {
				b.Fatal(err)
			}
			if err := sysmem.Mprotect(p+16<<10, 16<<10, sysmem.ProtRead|sysmem.ProtExec); err != nil {
				b.Fatal(err)
			}
			if err := sysmem.Munmap(p, cycleSize); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestAllocCycleSyscalls pins the benchmarked cycle's system calls: in
// steady state three mprotects (R and R-X at initialize, back to RW when
// the region returns to the cache) and no mmap, munmap or madvise.
func TestAllocCycleSyscalls(t *testing.T) {
	f := newFixture(t)
	c := newAllocCycle(t, f)
	c.run(t)
	c.run(t)
	before := f.mm.Stats().Slab
	const n = 100
	for range n {
		c.run(t)
	}
	after := f.mm.Stats().Slab
	if got := after.Protects - before.Protects; got != 3*n {
		t.Errorf("mprotects per cycle: %v, want 3", float64(got)/n)
	}
	if got := (after.Madvises - before.Madvises) + (after.Maps - before.Maps) + (after.Unmaps - before.Unmaps); got != 0 {
		t.Errorf("mmap/munmap/madvise calls in %d cycles: %d, want 0", n, got)
	}
}

// TestAllocCycleAllocs pins the cycle's heap allocations: the three result
// buffers (ownership passes to the caller), the reservation and region
// records, the slab region handle's bookkeeping — and nothing per byte.
func TestAllocCycleAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	f := newFixture(t)
	c := newAllocCycle(t, f)
	c.run(t)
	if got := testing.AllocsPerRun(200, func() { c.run(t) }); got > 6 {
		t.Errorf("allocations per alloc-cycle: %v, want at most 6", got)
	}
	a := newActionsRegions(t, f, 4)
	if got := testing.AllocsPerRun(200, func() { a.cycle(t) }); got > 4 {
		t.Errorf("allocations per initialize+deinitialize with 4 action pairs: %v, want at most 4", got)
	}
}
