//go:build cgo && linux

package codemap_test

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/orcgo/orcrt/arch"
	"github.com/orcgo/orcrt/internal/cmem"
	"github.com/orcgo/orcrt/internal/sysmem"
	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/native/codemap"
	"github.com/orcgo/orcrt/slab"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func libc(t testing.TB, name string) uintptr {
	t.Helper()
	h, err := native.Dlopen("", native.RTLD_LAZY)
	require.NoError(t, err)
	a, err := native.Dlsym(h, name)
	require.NoError(t, err)
	return a
}

func needCode(t testing.TB) {
	if retEmpty == nil {
		t.Skip("no hand-assembled code for this architecture")
	}
}

// mapCode maps a page the way a JIT'd program would with its own mmap,
// puts retEmpty in it and gives it prot. It is unmapped at cleanup.
func mapCode(t testing.TB, prot int) uintptr {
	t.Helper()
	pg := sysmem.PageSize()
	a, err := sysmem.Mmap(0, pg, sysmem.ProtRead|sysmem.ProtWrite, sysmem.MapPrivate|sysmem.MapAnonymous, -1, 0)
	require.NoError(t, err)
	copy(sysmem.View(a, pg), retEmpty)
	require.NoError(t, sysmem.Mprotect(a, pg, prot))
	if prot&sysmem.ProtExec != 0 {
		arch.FlushICache(a, pg)
	}
	t.Cleanup(func() { _ = sysmem.Munmap(a, pg) })
	return a
}

func assertNotCode(t *testing.T, addr uintptr, reason string) {
	t.Helper()
	err := codemap.Check(addr)
	require.Error(t, err, "%#x", addr)
	assert.ErrorIs(t, err, codemap.ErrNotCode)
	var nc *codemap.NotCodeError
	require.True(t, errors.As(err, &nc))
	assert.Equal(t, addr, nc.Addr)
	assert.Equal(t, reason, nc.Reason, "%#x", addr)
	assert.Contains(t, err.Error(), fmt.Sprintf("%#x is not executable code in this process", addr))
	assert.False(t, codemap.Check(addr) == nil)
}

// TestObjectText: the text of loaded objects is code — libc, the
// executable's Go and C functions, the exported jit-dispatch function.
func TestObjectText(t *testing.T) {
	for name, addr := range map[string]uintptr{
		"libc abs":                    libc(t, "abs"),
		"libc malloc + 1":             libc(t, "malloc") + 1,
		"dispatch_fn":                 native.DispatchFnAddr(),
		"Go function":                 reflect.ValueOf(TestObjectText).Pointer(),
		"Go runtime (gcWriteBarrier)": reflect.ValueOf(time.Now).Pointer(),
	} {
		assert.NoError(t, codemap.Check(addr), name)
	}
}

// TestRefusals: data, nothing and impossible addresses are refused with
// an error naming the address; addresses outside the user address space
// are refused without a rebuild.
func TestRefusals(t *testing.T) {
	before := codemap.ReadStats()
	for _, a := range []uintptr{0, 1, 4095, 1 << 57, 1 << 63, 0xffff800000000000, 0xffffffffff600000, ^uintptr(0)} {
		assertNotCode(t, a, codemap.ReasonOutside)
	}
	assert.Equal(t, before.Misses, codemap.ReadStats().Misses, "no lookup beyond the range check")

	heap := new([64]byte)
	cbuf := cmem.Malloc(64)
	defer cmem.Free(cbuf)
	rodata := "a string constant in read-only data"
	var local uint64
	pg := sysmem.PageSize()
	none, err := sysmem.Mmap(0, 3*pg, sysmem.ProtNone, sysmem.MapPrivate|sysmem.MapAnonymous, -1, 0)
	require.NoError(t, err)
	defer sysmem.Munmap(none, pg)
	require.NoError(t, sysmem.Munmap(none+pg, 2*pg)) // a hole: nothing mapped
	rw := mapCodeOr(t, sysmem.ProtRead|sysmem.ProtWrite)
	for name, a := range map[string]uintptr{
		"Go heap":           uintptr(unsafe.Pointer(heap)),
		"C heap":            cbuf,
		"read-only data":    uintptr(unsafe.Pointer(unsafe.StringData(rodata))),
		"goroutine stack":   uintptr(unsafe.Pointer(&local)),
		"PROT_NONE":         none,
		"unmapped":          none + pg,
		"unmapped (end)":    none + 3*pg - 1,
		"read-write mmap":   rw,
		"first page":        4096,
		"top of user space": 1<<47 - 1,
	} {
		t.Run(name, func(t *testing.T) {
			if name == "read-only data" && mappedExec(t, a) {
				// GNU ld for AArch64 does not default to -z separate-code:
				// .rodata shares the R E segment with .text, so the constant
				// is in executable memory (on real arm64 too, not a QEMU
				// artefact).
				t.Skip("this binary's .rodata is in its executable segment")
			}
			assertNotCode(t, a, codemap.ReasonUnmapped)
		})
	}
}

// mappedExec reports whether /proc/self/maps shows the page at a as
// executable.
func mappedExec(t *testing.T, a uintptr) bool {
	maps, err := slab.ReadMaps()
	require.NoError(t, err)
	for _, m := range maps {
		if a >= m.Start && a < m.End {
			return m.Prot&slab.ProtExec != 0
		}
	}
	return false
}

// mapCodeOr maps a page with code bytes but prot (possibly without
// execute); with no code for the architecture it maps an empty page.
func mapCodeOr(t *testing.T, prot int) uintptr {
	if retEmpty == nil {
		pg := sysmem.PageSize()
		a, err := sysmem.Mmap(0, pg, prot, sysmem.MapPrivate|sysmem.MapAnonymous, -1, 0)
		require.NoError(t, err)
		t.Cleanup(func() { _ = sysmem.Munmap(a, pg) })
		return a
	}
	return mapCode(t, prot)
}

// TestSlabIsAuthoritative: inside a slab arena only executable pages are
// code, whatever the rest of the map says, and deciding costs no rebuild.
func TestSlabIsAuthoritative(t *testing.T) {
	needCode(t)
	s, err := slab.New(slab.Config{Size: 1 << 20})
	require.NoError(t, err)
	closed := false
	defer func() {
		if !closed {
			_ = s.Close()
		}
	}()
	r, err := s.Reserve(uintptr(len(retEmpty)))
	require.NoError(t, err)
	require.NoError(t, s.Write(r.Base(), retEmpty, r.Size()))
	base, _ := s.Arena()

	before := codemap.ReadStats()
	assertNotCode(t, r.Base(), codemap.ReasonJITData) // read-write
	assertNotCode(t, base+512<<10, codemap.ReasonJITData)
	require.NoError(t, s.Protect(r.Base(), r.Size(), slab.ProtRX))
	require.NoError(t, codemap.Check(r.Base()))
	require.NoError(t, codemap.Check(r.Base()+r.Size()-1))
	res, err := native.CallWrapper(r.Base(), nil, nil)
	require.NoError(t, err)
	assert.Empty(t, res)
	require.NoError(t, s.Protect(r.Base(), r.Size(), slab.ProtRW))
	assertNotCode(t, r.Base(), codemap.ReasonJITData)
	require.NoError(t, s.Protect(r.Base(), r.Size(), slab.ProtRX))
	require.NoError(t, s.Release(r))
	assertNotCode(t, r.Base(), codemap.ReasonJITData)
	assert.Equal(t, before.Misses, codemap.ReadStats().Misses, "slab answers need no rebuild")

	require.NoError(t, s.Close())
	closed = true
	assertNotCode(t, r.Base(), codemap.ReasonUnmapped)
}

// TestProgramsOwnCode: executable memory the JIT'd program mapped itself
// is code (policy: any mapping with execute permission), found by the
// rebuild a miss triggers; once unmapped and rebuilt it is refused.
func TestProgramsOwnCode(t *testing.T) {
	needCode(t)
	for _, tc := range []struct {
		name string
		prot int
	}{
		{"r-x", sysmem.ProtRead | sysmem.ProtExec},
		{"rwx", sysmem.ProtRead | sysmem.ProtWrite | sysmem.ProtExec},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := mapCode(t, tc.prot)
			require.NoError(t, codemap.Check(a))
			require.NoError(t, codemap.Check(a+1))
			res, err := native.CallWrapper(a, []byte("x"), nil)
			require.NoError(t, err)
			assert.Empty(t, res)
			// Second lookup: a hit, no miss.
			st := codemap.ReadStats()
			require.NoError(t, codemap.Check(a))
			assert.Equal(t, st.Misses, codemap.ReadStats().Misses)
			require.NoError(t, sysmem.Munmap(a, sysmem.PageSize()))
			codemap.Refresh()
			assertNotCode(t, a, codemap.ReasonUnmapped)
		})
	}
}

// TestMissNeverAnsweredFromStaleSnapshot: under a long rate limit, a
// miss for code mapped just after a rebuild waits for the next rebuild
// instead of being refused.
func TestMissNeverAnsweredFromStaleSnapshot(t *testing.T) {
	needCode(t)
	defer codemap.SetMinRefreshInterval(codemap.SetMinRefreshInterval(150 * time.Millisecond))
	heap := new(int64)
	assertNotCode(t, uintptr(unsafe.Pointer(heap)), codemap.ReasonUnmapped) // a rebuild just now
	a := mapCode(t, sysmem.ProtRead|sysmem.ProtExec)
	start := time.Now()
	require.NoError(t, codemap.Check(a))
	t.Logf("new code found after %v", time.Since(start))
	assert.Less(t, time.Since(start), 2*time.Second)
}

// TestMissesAreRateLimited: a flood of calls at garbage addresses from
// many goroutines costs at most one rebuild per interval.
func TestMissesAreRateLimited(t *testing.T) {
	const interval = 40 * time.Millisecond
	const dur = 400 * time.Millisecond
	defer codemap.SetMinRefreshInterval(codemap.SetMinRefreshInterval(interval))
	garbage := uintptr(unsafe.Pointer(new([16]byte)))
	before := codemap.ReadStats()
	var calls atomic.Int64
	var wg sync.WaitGroup
	stop := time.Now().Add(dur)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				if codemap.Check(garbage) == nil {
					t.Error("garbage accepted")
					return
				}
				calls.Add(1)
			}
		}()
	}
	wg.Wait()
	after := codemap.ReadStats()
	rebuilds := after.Refreshes - before.Refreshes
	t.Logf("%d refused calls, %d misses, %d rebuilds in %v (interval %v)", calls.Load(), after.Misses-before.Misses, rebuilds, dur, interval)
	assert.LessOrEqual(t, rebuilds, uint64(dur/interval)+2)
	assert.GreaterOrEqual(t, rebuilds, uint64(2))
	assert.Greater(t, uint64(calls.Load()), rebuilds, "misses share rebuilds")
}

// TestHitPathCostsNothing: hits never rebuild (the only place the map
// makes system calls) and never allocate.
func TestHitPathCostsNothing(t *testing.T) {
	needCode(t)
	s, err := slab.New(slab.Config{Size: 1 << 20})
	require.NoError(t, err)
	defer s.Close()
	r, err := s.Reserve(uintptr(len(retEmpty)))
	require.NoError(t, err)
	require.NoError(t, s.Write(r.Base(), retEmpty, r.Size()))
	require.NoError(t, s.Protect(r.Base(), r.Size(), slab.ProtRX))
	obj := libc(t, "abs")
	own := mapCode(t, sysmem.ProtRead|sysmem.ProtExec)
	for _, a := range []uintptr{obj, r.Base(), own} {
		require.NoError(t, codemap.Check(a)) // warm
	}
	st := codemap.ReadStats()
	for range 100000 {
		if codemap.Check(obj) != nil || codemap.Check(r.Base()) != nil || codemap.Check(own) != nil {
			t.Fatal("hit refused")
		}
	}
	after := codemap.ReadStats()
	assert.Equal(t, st.Misses, after.Misses)
	assert.Equal(t, st.Refreshes, after.Refreshes)
	for name, a := range map[string]uintptr{"object": obj, "slab": r.Base(), "own mapping": own} {
		if n := testing.AllocsPerRun(1000, func() { _ = codemap.Check(a) }); n != 0 {
			t.Errorf("%s: %v allocations per hit", name, n)
		}
	}
}

// TestConcurrentLookups races lookups against slabs being created,
// protected and closed, and against rebuilds (run with -race).
func TestConcurrentLookups(t *testing.T) {
	needCode(t)
	obj := libc(t, "abs")
	heap := uintptr(unsafe.Pointer(new([8]byte)))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var slabBase atomic.Uintptr
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			s, err := slab.New(slab.Config{Size: 256 << 10})
			if err != nil {
				t.Error(err)
				return
			}
			r, _ := s.Reserve(uintptr(len(retEmpty)))
			_ = s.Write(r.Base(), retEmpty, r.Size())
			_ = s.Protect(r.Base(), r.Size(), slab.ProtRX)
			slabBase.Store(r.Base())
			codemap.Refresh()
			_ = s.Protect(r.Base(), r.Size(), slab.ProtRW)
			_ = s.Close()
		}
	}()
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if codemap.Check(obj) != nil {
					t.Error("libc refused")
					return
				}
				if codemap.Check(heap) == nil {
					t.Error("heap accepted")
					return
				}
				_ = codemap.Check(slabBase.Load()) // either answer; no race
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	close(stop)
	wg.Wait()
}

// BenchmarkCheck: the cost of the guard in front of every native call,
// beside an empty cgo call (the call it guards costs at least that).
func BenchmarkCheck(b *testing.B) {
	s, err := slab.New(slab.Config{Size: 1 << 20})
	require.NoError(b, err)
	defer s.Close()
	r, err := s.Reserve(64)
	require.NoError(b, err)
	require.NoError(b, s.Protect(r.Base(), r.Size(), slab.ProtRX))
	for _, bc := range []struct {
		name string
		addr uintptr
	}{
		{"hit=slab", r.Base()},
		{"hit=object", libc(b, "abs")},
		{"refuse=outside", 1 << 63},
		{"refuse=slab-data", r.Base() + 4096},
	} {
		_ = codemap.Check(bc.addr)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = codemap.Check(bc.addr)
			}
		})
	}
	b.Run("reference=empty-cgo-call", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			cmem.CallEmpty()
		}
	})
}
