//go:build cgo && linux

package executorfuzz

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orcgo/orcrt/alloc"
	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/service/dylib"
	"github.com/orcgo/orcrt/service/ehframe"
	"github.com/orcgo/orcrt/service/gdbjit"
	"github.com/orcgo/orcrt/service/memaccess"
	"github.com/orcgo/orcrt/service/perfjit"
	"github.com/orcgo/orcrt/sps"
)

// target is a fuzzed bootstrap wrapper: its name and how to check (and
// learn addresses from) a result that is not an out-of-band error.
type target struct {
	name  string
	check func(b []byte) (seen []sps.Addr, err error)
	// dialect is the dialect whose executor serves the target (nil: the
	// latest, for the functions every dialect shares).
	dialect *dialect.Dialect
}

func expectAddr(f func([]byte) (sps.Expected[sps.Addr], error)) func([]byte) ([]sps.Addr, error) {
	return func(b []byte) ([]sps.Addr, error) {
		v, err := f(b)
		if err != nil || v.Err != nil {
			return nil, err
		}
		return []sps.Addr{v.Value}, nil
	}
}

func errorResult(f func([]byte) (error, error)) func([]byte) ([]sps.Addr, error) {
	return func(b []byte) ([]sps.Addr, error) {
		_, err := f(b)
		return nil, err
	}
}

func anyResult[T any](f func([]byte) (T, error)) func([]byte) ([]sps.Addr, error) {
	return func(b []byte) ([]sps.Addr, error) {
		_, err := f(b)
		return nil, err
	}
}

// targets are every bootstrap wrapper function outside the trust
// boundary, selected by the first input byte (modulo their number).
var targets = []target{
	{alloc.MemoryManagerReserveName, expectAddr(sps.MemoryManagerReserve.DecodeResult), nil},
	{alloc.MemoryManagerInitializeName, expectAddr(sps.MemoryManagerInitialize.DecodeResult), nil},
	{alloc.MemoryManagerDeinitializeName, errorResult(sps.MemoryManagerDeinitialize.DecodeResult), nil},
	{alloc.MemoryManagerReleaseName, errorResult(sps.MemoryManagerRelease.DecodeResult), nil},
	{alloc.SharedMapperReserveName, func(b []byte) ([]sps.Addr, error) {
		v, err := sps.SharedMemoryReserve.DecodeResult(b)
		if err != nil || v.Err != nil {
			return nil, err
		}
		return []sps.Addr{v.Value.First}, nil
	}, nil},
	{alloc.SharedMapperInitializeName, expectAddr(sps.SharedMemoryInitialize.DecodeResult), nil},
	{alloc.SharedMapperDeinitializeName, errorResult(sps.SharedMemoryDeinitialize.DecodeResult), nil},
	{alloc.SharedMapperReleaseName, errorResult(sps.SharedMemoryRelease.DecodeResult), nil},
	{dylib.OpenWrapperName, expectAddr(sps.DylibManagerOpen.DecodeResult), nil},
	{dylib.ResolveWrapperName, anyResult(sps.DylibManagerResolve.DecodeResult), nil},
	{memaccess.ReadUInt8sName, anyResult(sps.ReadUInt8s.DecodeResult), nil},
	{memaccess.ReadUInt16sName, anyResult(sps.ReadUInt16s.DecodeResult), nil},
	{memaccess.ReadUInt32sName, anyResult(sps.ReadUInt32s.DecodeResult), nil},
	{memaccess.ReadUInt64sName, anyResult(sps.ReadUInt64s.DecodeResult), nil},
	{memaccess.ReadPointersName, anyResult(sps.ReadPointers.DecodeResult), nil},
	{ehframe.DeregisterActionName, errorResult(sps.DeregisterEHFrameAction.DecodeResult), nil},
	{gdbjit.RegisterActionName, errorResult(sps.RegisterJITLoaderGDBAction.DecodeResult), nil},
	// Perf support: process symbols of every dialect.
	{perfjit.StartName, errorResult(sps.RegisterPerfStart.DecodeResult), nil},
	{perfjit.ImplName, errorResult(sps.RegisterPerfImpl.DecodeResult), nil},
	{perfjit.EndName, errorResult(sps.RegisterPerfEnd.DecodeResult), nil},
	// LLVM 14-19's own functions.
	{alloc.MemoryManagerFinalizeName, errorResult(sps.MemoryManagerFinalize.DecodeResult), dialect.LLVM14},
	{alloc.MemoryManagerDeallocateName, errorResult(sps.MemoryManagerDeallocate.DecodeResult), dialect.LLVM14},
	{alloc.MemoryManagerFinalizeName, errorResult(sps.MemoryManagerFinalize.DecodeResult), dialect.LLVM19},
	{alloc.MemoryManagerDeallocateName, errorResult(sps.MemoryManagerDeallocate.DecodeResult), dialect.LLVM19},
	{dylib.LookupWrapperName, anyResult(sps.DylibManagerLookupAddrs.DecodeResult), dialect.LLVM14},
	{dylib.LookupWrapperName, anyResult(sps.DylibManagerLookupDefs.DecodeResult), dialect.LLVM19},
	{"__llvm_orc_bootstrap_deregister_ehframe_section_wrapper", errorResult(sps.DeregisterEHFrameAction.DecodeResult), dialect.LLVM14},
	{"llvm_orc_deregisterEHFrameSectionWrapper", errorResult(sps.DeregisterEHFrameAction.DecodeResult), dialect.LLVM14},
	{"llvm_orc_deregisterEHFrameSectionWrapper", errorResult(sps.DeregisterEHFrameAction.DecodeResult), dialect.LLVM19},
	{"llvm_orc_registerJITLoaderGDBWrapper", errorResult(sps.RegisterJITLoaderGDBAction.DecodeResult), dialect.LLVM14},
	{"llvm_orc_registerJITLoaderGDBWrapper", errorResult(sps.RegisterJITLoaderGDBAction.DecodeResult), dialect.LLVM19},
	// LLVM 23's and main's own functions (their other names are aliases
	// of functions above).
	{dylib.ResolveWrapperName, eitherResolve, dialect.LLVM23},
	{dylib.NativeLoadName, expectAddr(sps.NativeDylibManagerLoad.DecodeResult), dialect.LLVM23},
	{dylib.NativeLookupName, anyResult(sps.DylibManagerResolveAddrs.DecodeResult), dialect.LLVM23},
	{dylib.ResolveWrapperName, eitherResolve, dialect.LLVMMain},
	{dylib.NativeLoadName, expectAddr(sps.NativeDylibManagerLoad.DecodeResult), dialect.LLVMMain},
	{dylib.NativeLookupName, anyResult(sps.DylibManagerResolveAddrs.DecodeResult), dialect.LLVMMain},
	{dialect.LLVMMain.GDBAllocAction, errorResult(sps.RegisterJITLoaderGDBAction.DecodeResult), dialect.LLVMMain},
}

// eitherResolve checks a resolve answered in LLVM 22's form or in 23's,
// whichever the arguments chose.
func eitherResolve(b []byte) ([]sps.Addr, error) {
	if _, err := sps.DylibManagerResolve.DecodeResult(b); err == nil {
		return nil, nil
	}
	_, err := sps.DylibManagerResolveAddrs.DecodeResult(b)
	return nil, err
}

// dialectOf is the dialect whose executor serves tg.
func (tg target) dialectOf() *dialect.Dialect {
	if tg.dialect == nil {
		return dialect.Latest
	}
	return tg.dialect
}

// TestTargetsCoverTheBoundary: every bootstrap wrapper function is either
// fuzzed by FuzzWrappers or excluded and fuzzed confined — a new service
// cannot slip past both.
func TestTargetsCoverTheBoundary(t *testing.T) {
	for _, d := range dialect.All {
		ex, w := newExecutorFor(t, d, false)
		fuzzed := map[string]bool{}
		for _, tg := range targets {
			if tg.dialect != nil && tg.dialect != d {
				continue
			}
			if excluded[tg.name] {
				t.Errorf("%s: %s is both fuzzed and excluded", d.Name, tg.name)
			}
			if _, ok := ex.Session().LookupWrapper(w.addr[tg.name]); !ok && tg.dialect == d {
				t.Errorf("%s: %s is not a wrapper function of the executor", d.Name, tg.name)
			}
			fuzzed[tg.name] = true
		}
		// A name is covered by any other name of its address (LLVM 23's and
		// main's aliases).
		covered := map[sps.Addr]bool{}
		for name, a := range w.addr {
			if fuzzed[name] || excluded[name] {
				covered[a] = true
			}
		}
		for name, a := range w.addr {
			if _, isWrapper := ex.Session().LookupWrapper(a); isWrapper && !covered[a] {
				t.Errorf("%s: bootstrap wrapper %s is neither fuzzed nor excluded", d.Name, name)
			}
			if _, isWrapper := ex.Session().LookupWrapper(a); isWrapper && excluded[name] && !slices.ContainsFunc(confinedTargets, func(tg confinedTarget) bool { return tg.name == name }) {
				t.Errorf("%s: excluded wrapper %s is not fuzzed confined", d.Name, name)
			}
		}
		for _, tg := range confinedTargets {
			if _, ok := ex.Session().LookupWrapper(w.addr[tg.name]); tg.dialectOf() == d && tg.kind != cJITWrapper && tg.kind != cDispatch && !ok {
				t.Errorf("%s: confined target %s is not a wrapper function of the executor", d.Name, tg.name)
			}
		}
		ex.Close()
	}
}

// wrapperState holds one executor per dialect, rebuilt every
// rebuildEvery calls.
var wrapperState struct {
	mu     sync.Mutex
	worlds map[*dialect.Dialect]*wrapperWorldState
}

type wrapperWorldState struct {
	ex    *executor.Executor
	w     *world
	calls int
}

const (
	sharedSize   = 64 << 10 // each kindShared reservation
	rebuildEvery = 500
	maxSeen      = 16
	callTimeout  = 10 * time.Second
)

func wrapperWorld(tb testing.TB, d *dialect.Dialect) (*executor.Executor, *world) {
	if wrapperState.worlds == nil {
		wrapperState.worlds = map[*dialect.Dialect]*wrapperWorldState{}
	}
	st := wrapperState.worlds[d]
	if st == nil {
		st = &wrapperWorldState{}
		wrapperState.worlds[d] = st
	}
	if st.ex == nil || st.calls >= rebuildEvery {
		if st.ex != nil {
			st.ex.Close()
		}
		st.ex, st.w = newExecutorFor(tb, d, false)
		st.w.seen = append(st.w.seen, st.w.reserved...)
		for _, lib := range []string{"", "libm.so.6"} {
			h, err := st.ex.DylibManager().Open(lib, 0)
			if err != nil {
				tb.Fatal(err)
			}
			st.w.handles = append(st.w.handles, h)
		}
		if sm, err := rt.InstanceAt[*alloc.SharedMemoryMapper](st.ex.Session(), st.w.addr[alloc.SharedMapperInstanceName]); err == nil {
			for range 2 {
				a, _, err := sm.Reserve(sharedSize)
				if err != nil {
					tb.Fatal(err)
				}
				st.w.shared = append(st.w.shared, a)
			}
		}
		st.calls = 0
	}
	st.calls++
	return st.ex, st.w
}

// closeWrapperWorlds closes the executors FuzzWrappers and
// FuzzConfinedWrappers share.
func closeWrapperWorlds() {
	wrapperState.mu.Lock()
	defer wrapperState.mu.Unlock()
	for d, st := range wrapperState.worlds {
		if st.ex != nil {
			st.ex.Close()
		}
		delete(wrapperState.worlds, d)
	}
}

func callWrapper(t *testing.T, s *rt.Session, fn rt.WrapperFunc, args []byte) rt.WrapperResult {
	ch := make(chan rt.WrapperResult, 2)
	fn(s, args, func(r rt.WrapperResult) { ch <- r })
	var r rt.WrapperResult
	select {
	case r = <-ch:
	case <-time.After(callTimeout):
		t.Fatalf("no result within %v", callTimeout)
	}
	select {
	case <-ch:
		t.Fatal("the wrapper returned twice")
	default:
	}
	return r
}

// FuzzWrappers: see the package documentation.
func FuzzWrappers(f *testing.F) {
	addWrapperSeeds(f)
	f.Cleanup(closeWrapperWorlds)
	f.Fuzz(func(t *testing.T, which byte, args []byte) {
		defer watchdog(3 * callTimeout)()
		wrapperState.mu.Lock()
		defer wrapperState.mu.Unlock()
		tg := targets[int(which)%len(targets)]
		ex, w := wrapperWorld(t, tg.dialectOf())
		fn, ok := ex.Session().LookupWrapper(w.addr[tg.name])
		if !ok {
			t.Fatalf("%s: no such wrapper", tg.name)
		}
		r := callWrapper(t, ex.Session(), fn, w.sanitizeArgs(tg.name, args))
		if msg, oob := r.OutOfBandError(); oob {
			if strings.Contains(msg, "panic") {
				t.Fatalf("%s: %s", tg.name, msg)
			}
			return
		}
		seen, err := tg.check(r.Bytes())
		if err != nil {
			t.Fatalf("%s: result %x does not decode: %v", tg.name, r.Bytes(), err)
		}
		for _, a := range seen {
			if a != 0 {
				w.seen = append(w.seen, a)
				if len(w.seen) > maxSeen {
					w.seen = w.seen[1:]
				}
			}
		}
	})
}

func addWrapperSeeds(f *testing.F) {
	w := seedWorld(f)
	idx := map[string]byte{}
	for i, tg := range targets {
		idx[tg.name] = byte(i)
	}
	sym := func(name string) sps.Addr { return addrPh(phSym(w.sym(name))) }
	seen := func(k, off int) sps.Addr { return addrPh(phSeen(k, off)) }
	mm, sm, dl := sym(alloc.MemoryManagerInstanceName), sym(alloc.SharedMapperInstanceName), sym(dylib.InstanceName)
	gdb := sps.WrapperCall{Fn: sym(gdbjit.RegisterActionName), Args: sps.RegisterJITLoaderGDBAction.AppendArgs(nil, sps.AddrRange{Start: 0x1000, End: 0x1010}, false)}
	dereg := sps.WrapperCall{Fn: sym(ehframe.DeregisterActionName), Args: sps.DeregisterEHFrameAction.AppendArgs(nil, sps.AddrRange{Start: 0x1000, End: 0x1010})}
	add := func(name string, args []byte) { f.Add(idx[name], args) }

	add(alloc.MemoryManagerReserveName, sps.MemoryManagerReserve.AppendArgs(nil, mm, 0x4000))
	add(alloc.MemoryManagerReserveName, sps.MemoryManagerReserve.AppendArgs(nil, mm, 0))
	add(alloc.MemoryManagerInitializeName, sps.MemoryManagerInitialize.AppendArgs(nil, mm, sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{
			{Group: sps.Read | sps.Write, Addr: seen(0, 0), Size: 0x1000, Content: []byte("data")},
			{Group: sps.Read | sps.Exec, Addr: seen(0, 0x1000), Size: 0x800, Content: []byte{0xc3}},
			{Group: sps.Read | sps.FinalizeLifetime, Addr: seen(0, 0x2000), Size: 0x1000},
		},
		Actions: []sps.ActionPair{{Finalize: gdb, Dealloc: dereg}, {Dealloc: sps.WrapperCall{Fn: 0x7000_0000_1000}}},
	}))
	add(alloc.MemoryManagerInitializeName, sps.MemoryManagerInitialize.AppendArgs(nil, mm, sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{{Group: sps.Read, Addr: seen(1, 0x3000), Size: 0x100}},
		Actions:  []sps.ActionPair{{Finalize: sps.WrapperCall{Fn: sym(alloc.MemoryManagerInstanceName)}}},
	}))
	add(alloc.MemoryManagerDeinitializeName, sps.MemoryManagerDeinitialize.AppendArgs(nil, mm, []sps.Addr{seen(0, 0), seen(2, 0)}))
	add(alloc.MemoryManagerReleaseName, sps.MemoryManagerRelease.AppendArgs(nil, mm, []sps.Addr{seen(3, 0)}))
	add(alloc.SharedMapperReserveName, sps.SharedMemoryReserve.AppendArgs(nil, sm, 0x10000))
	add(alloc.SharedMapperInitializeName, sps.SharedMemoryInitialize.AppendArgs(nil, sm, seen(4, 0), sps.SharedFinalizeRequest{
		Segments: []sps.SharedSegFinalizeRequest{{Group: sps.Read | sps.Exec, Addr: seen(4, 0), Size: 0x1000}, {Group: sps.Read | sps.Write, Addr: seen(4, 0x1000), Size: 0x1000}},
		Actions:  []sps.ActionPair{{Finalize: gdb}},
	}))
	shared := func(off int) sps.Addr { return addrPh(phShared(off>>16, off&0xffff)) }
	shInit := func(segs ...sps.SharedSegFinalizeRequest) []byte {
		return sps.SharedMemoryInitialize.AppendArgs(nil, sm, shared(0), sps.SharedFinalizeRequest{Segments: segs, Actions: []sps.ActionPair{{Finalize: gdb}}})
	}
	add(alloc.SharedMapperInitializeName, shInit(sps.SharedSegFinalizeRequest{Group: sps.Read | sps.Exec, Addr: shared(0), Size: 0x1000}, sps.SharedSegFinalizeRequest{Group: sps.Read | sps.Write, Addr: shared(0x1000), Size: 0x1000}))
	add(alloc.SharedMapperInitializeName, shInit(sps.SharedSegFinalizeRequest{Group: sps.Read, Addr: shared(0), Size: 0x10}))            // already initialized
	add(alloc.SharedMapperInitializeName, shInit(sps.SharedSegFinalizeRequest{Group: sps.Read, Addr: shared(0x2000), Size: sharedSize})) // past the reservation
	add(alloc.SharedMapperInitializeName, shInit(sps.SharedSegFinalizeRequest{Group: sps.Read | sps.Write | sps.Exec, Addr: shared(0x3000), Size: 0x1000}))
	add(alloc.SharedMapperInitializeName, sps.SharedMemoryInitialize.AppendArgs(nil, sm, shared(0), sps.SharedFinalizeRequest{
		Segments: []sps.SharedSegFinalizeRequest{{Group: sps.Read, Addr: shared(0x4000), Size: 0x1000}},
		Actions:  []sps.ActionPair{{Finalize: sps.WrapperCall{Fn: sym(ehframe.DeregisterActionName), Args: sps.DeregisterEHFrameAction.AppendArgs(nil, sps.AddrRange{Start: 0x1000, End: 0x1010})}}},
	})) // a failing action
	add(alloc.SharedMapperDeinitializeName, sps.SharedMemoryDeinitialize.AppendArgs(nil, sm, []sps.Addr{shared(0), shared(0x4000)}))
	// The second reservation is released with an allocation in it.
	add(alloc.SharedMapperInitializeName, sps.SharedMemoryInitialize.AppendArgs(nil, sm, shared(1<<16), sps.SharedFinalizeRequest{
		Segments: []sps.SharedSegFinalizeRequest{{Group: sps.Read, Addr: shared(1 << 16), Size: 0x1000}},
		Actions:  []sps.ActionPair{{Dealloc: gdb}},
	}))
	add(alloc.SharedMapperReleaseName, sps.SharedMemoryRelease.AppendArgs(nil, sm, []sps.Addr{shared(1 << 16), 0x1234000}))
	add(alloc.SharedMapperInitializeName, sps.SharedMemoryInitialize.AppendArgs(nil, mm, shared(0), sps.SharedFinalizeRequest{})) // another instance
	add(alloc.SharedMapperInitializeName, append(le64(uint64(mm)), make([]byte, 9)...))                                           // another instance, undecodable
	add(alloc.SharedMapperInitializeName, append(le64(uint64(sm)), make([]byte, 9)...))                                           // undecodable
	// Actions that fail: an out-of-band error, and a result that is not
	// an SPSError.
	for _, a := range []sps.WrapperCall{
		{Fn: sym(gdbjit.RegisterActionName), Args: []byte{1, 2, 3}},
		{Fn: sym(memaccess.ReadUInt8sName), Args: sps.ReadUInt8s.AppendArgs(nil, []sps.Addr{seen(0, 0)})},
	} {
		add(alloc.MemoryManagerInitializeName, sps.MemoryManagerInitialize.AppendArgs(nil, mm, sps.FinalizeRequest{
			Segments: []sps.SegFinalizeRequest{{Group: sps.Read, Addr: seen(1, 0x8000), Size: 0x100}},
			Actions:  []sps.ActionPair{{Finalize: a}},
		}))
	}
	add(alloc.SharedMapperDeinitializeName, sps.SharedMemoryDeinitialize.AppendArgs(nil, sm, []sps.Addr{seen(5, 0)}))
	add(alloc.SharedMapperReleaseName, sps.SharedMemoryRelease.AppendArgs(nil, sm, []sps.Addr{seen(4, 0)}))
	add(dylib.OpenWrapperName, sps.DylibManagerOpen.AppendArgs(nil, dl, "", 0))
	add(dylib.OpenWrapperName, sps.DylibManagerOpen.AppendArgs(nil, dl, "libm.so.6", 0))
	add(dylib.OpenWrapperName, sps.DylibManagerOpen.AppendArgs(nil, dl, "/nonexistent", 1))
	add(dylib.ResolveWrapperName, sps.DylibManagerResolve.AppendArgs(nil, seen(6, 0), []sps.LookupElement{
		{Name: []byte("printf"), Required: true}, {Name: []byte("no_such_symbol_x")}, {Name: nil},
	}))
	proc, libm := addrPh(phHandle(0)), addrPh(phHandle(1))
	lookups := [][]sps.LookupElement{
		{{Name: []byte("printf"), Required: true}, {Name: []byte("no_such_symbol_x")}, {Name: nil}},
		{{Name: nil}},
		{{Name: nil, Required: true}},
		{{Name: []byte("cos"), Required: true}, {Name: []byte("printf")}},
	}
	for _, h := range []sps.Addr{proc, libm} {
		for _, set := range lookups {
			add(dylib.ResolveWrapperName, sps.DylibManagerResolve.AppendArgs(nil, h, set))
		}
	}
	add(memaccess.ReadUInt8sName, sps.ReadUInt8s.AppendArgs(nil, []sps.Addr{seen(0, 0), 0, 0x1000, sym(alloc.MemoryManagerInstanceName)}))
	add(memaccess.ReadUInt16sName, sps.ReadUInt16s.AppendArgs(nil, []sps.Addr{seen(0, 2)}))
	add(memaccess.ReadUInt32sName, sps.ReadUInt32s.AppendArgs(nil, []sps.Addr{seen(1, 4)}))
	add(memaccess.ReadUInt64sName, sps.ReadUInt64s.AppendArgs(nil, []sps.Addr{seen(2, 8), 0xffff_ffff_ffff_fff8}))
	add(memaccess.ReadPointersName, sps.ReadPointers.AppendArgs(nil, []sps.Addr{seen(3, 0)}))
	add(ehframe.DeregisterActionName, sps.DeregisterEHFrameAction.AppendArgs(nil, sps.AddrRange{Start: seen(0, 0), End: seen(0, 0x10)}))
	add(gdbjit.RegisterActionName, sps.RegisterJITLoaderGDBAction.AppendArgs(nil, sps.AddrRange{Start: 0x2000, End: 0x1000}, true))
	addLegacyWrapperSeeds(f)
	for i := range targets {
		f.Add(byte(i), []byte{})
		f.Add(byte(i), []byte{1, 2, 3})
		f.Add(byte(i), append(le64(uint64(mm)), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f))
	}
}

// addLegacyWrapperSeeds adds seeds for the functions of LLVM 14-19,
// with the placeholders of their dialects' worlds.
func addLegacyWrapperSeeds(f *testing.F) {
	for _, d := range []*dialect.Dialect{dialect.LLVM14, dialect.LLVM19} {
		w := seedWorldFor(f, d)
		sym := func(name string) sps.Addr { return addrPh(phSym(w.sym(name))) }
		seen := func(k, off int) sps.Addr { return addrPh(phSeen(k, off)) }
		at := func(name string) byte {
			for i, tg := range targets {
				if tg.name == name && tg.dialect == d {
					return byte(i)
				}
			}
			panic("executorfuzz: no target " + name + " for " + d.Name)
		}
		mm, dl := sym(alloc.MemoryManagerInstanceName), sym(dylib.InstanceName)
		rng := sps.AddrRange{Start: seen(0, 0), End: seen(0, 0x40)}
		f.Add(at(alloc.MemoryManagerFinalizeName), sps.MemoryManagerFinalize.AppendArgs(nil, mm, sps.FinalizeRequest{
			Segments: []sps.SegFinalizeRequest{
				{Group: sps.Read | sps.Exec, Addr: seen(0, 0), Size: 0x66, Content: []byte{0xc3}},
				{Group: sps.Read, Addr: seen(0, 0x1000), Size: 0x8c},
				{Group: sps.Read | sps.Write, Addr: seen(0, 0x2000)},
			},
		}))
		f.Add(at(alloc.MemoryManagerFinalizeName), sps.MemoryManagerFinalize.AppendArgs(nil, mm, sps.FinalizeRequest{}))
		f.Add(at(alloc.MemoryManagerDeallocateName), sps.MemoryManagerDeallocate.AppendArgs(nil, mm, []sps.Addr{seen(0, 0), 0xdead000}))
		f.Add(at("llvm_orc_deregisterEHFrameSectionWrapper"), sps.DeregisterEHFrameAction.AppendArgs(nil, rng))
		lookups := [][]sps.LookupElement{
			{{Name: []byte("printf")}, {Name: []byte("llvm_orc_registerJITLoaderGDBWrapper"), Required: true}, {Name: []byte("no_such_x")}},
			{{Name: []byte("printf")}, {Name: []byte("no_such_x"), Required: true}},
			{{Name: []byte("llvm_orc_registerJITLoaderGDBWrapper")}, {Name: []byte("cos")}, {Name: nil}},
		}
		for _, h := range []sps.Addr{addrPh(phHandle(0)), addrPh(phHandle(1))} {
			for _, set := range lookups {
				if d == dialect.LLVM14 {
					f.Add(at(dylib.LookupWrapperName), sps.DylibManagerLookupAddrs.AppendArgs(nil, dl, h, set))
				} else {
					f.Add(at(dylib.LookupWrapperName), sps.DylibManagerLookupDefs.AppendArgs(nil, dl, h, set))
				}
			}
		}
		if d == dialect.LLVM14 {
			f.Add(at(dylib.LookupWrapperName), sps.DylibManagerLookupAddrs.AppendArgs(nil, dl, seen(1, 0), []sps.LookupElement{
				{Name: []byte("printf")}, {Name: []byte("llvm_orc_registerJITLoaderGDBWrapper"), Required: true}, {Name: []byte("no_such_x"), Required: true},
			}))
			f.Add(at("__llvm_orc_bootstrap_deregister_ehframe_section_wrapper"), sps.DeregisterEHFrameAction.AppendArgs(nil, rng))
			f.Add(at("llvm_orc_registerJITLoaderGDBWrapper"), sps.DeregisterEHFrameAction.AppendArgs(nil, rng))
		} else {
			f.Add(at(dylib.LookupWrapperName), sps.DylibManagerLookupDefs.AppendArgs(nil, dl, seen(1, 0), []sps.LookupElement{
				{Name: []byte("printf")}, {Name: []byte("no_such_x")},
			}))
			f.Add(at("llvm_orc_registerJITLoaderGDBWrapper"), sps.RegisterJITLoaderGDBAction.AppendArgs(nil, rng, false))
		}
		for _, tg := range targets {
			if tg.dialect == d {
				f.Add(at(tg.name), []byte{9, 9, 9})
			}
		}
	}
}

// TestWrapperSeedsSucceed: the seeds resolve their placeholders and get
// past argument decoding, most of them into success.
func TestWrapperSeedsSucceed(t *testing.T) {
	ex, w := newExecutor(t)
	defer ex.Close()
	w.seen = append(w.seen, w.reserved...)
	mm := w.addr[alloc.MemoryManagerInstanceName]
	for _, c := range []struct {
		name string
		args []byte
	}{
		{alloc.MemoryManagerReserveName, sps.MemoryManagerReserve.AppendArgs(nil, addrPh(phSym(w.sym(alloc.MemoryManagerInstanceName))), 0x4000)},
		{alloc.MemoryManagerInitializeName, sps.MemoryManagerInitialize.AppendArgs(nil, mm, sps.FinalizeRequest{
			Segments: []sps.SegFinalizeRequest{{Group: sps.Read | sps.Write, Addr: addrPh(phSeen(0, 0)), Size: 0x1000}},
			Actions:  []sps.ActionPair{{Finalize: sps.WrapperCall{Fn: addrPh(phSym(w.sym(gdbjit.RegisterActionName))), Args: sps.RegisterJITLoaderGDBAction.AppendArgs(nil, sps.AddrRange{Start: 1, End: 2}, false)}}},
		})},
		{memaccess.ReadUInt64sName, sps.ReadUInt64s.AppendArgs(nil, []sps.Addr{addrPh(phSeen(1, 8))})},
	} {
		fn, _ := ex.Session().LookupWrapper(w.addr[c.name])
		r := callWrapper(t, ex.Session(), fn, w.sanitizeArgs(c.name, c.args))
		if r.IsOutOfBandError() {
			t.Fatalf("%s: %v", c.name, r.Err())
		}
		var err error
		switch c.name {
		case alloc.MemoryManagerReserveName, alloc.MemoryManagerInitializeName:
			var v sps.Expected[sps.Addr]
			v, err = sps.MemoryManagerReserve.DecodeResult(r.Bytes())
			if err == nil {
				err = v.Err
			}
		default:
			_, err = sps.ReadUInt64s.DecodeResult(r.Bytes())
		}
		if err != nil {
			t.Fatal(fmt.Errorf("%s: %w", c.name, err))
		}
	}
}
