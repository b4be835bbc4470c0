//go:build linux

package slab

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/orcgo/orcrt/internal/sysmem"
)

// countMemfds counts open file descriptors of slab memfds (other fds,
// such as the runtime's netpoller, come and go on their own).
func countMemfds() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.Contains(l, "memfd:orcrt-slab") {
			n++
		}
	}
	return n
}

// TestMain checks for leaks after all tests: every slab closed, no memfd
// view still mapped, no file descriptor left open, no goroutine left.
// (Each test's cleanup also checks its arena is unmapped right after
// Close; see newSlab.)
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if n := LiveSlabs(); n != 0 {
			fmt.Fprintf(os.Stderr, "slab: %d slabs not closed\n", n)
			code = 1
		}
		maps, err := ReadMaps()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
		for _, mp := range maps {
			if strings.Contains(mp.Path, "orcrt-slab") {
				fmt.Fprintf(os.Stderr, "slab: memfd view still mapped: %+v\n", mp)
				code = 1
			}
		}
		if n := countMemfds(); n != 0 {
			fmt.Fprintf(os.Stderr, "slab: %d memfd descriptors still open\n", n)
			code = 1
		}
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// assertUnmapped fails if [base, base+size) is still entirely mapped.
// (Another mapping may legitimately reuse part of a released range.)
func assertUnmapped(t testing.TB, base, size uintptr) {
	t.Helper()
	maps, err := ReadMaps()
	require.NoError(t, err)
	var covered uintptr
	for _, m := range maps {
		if m.Start < base+size && m.End > base {
			covered += min(m.End, base+size) - max(m.Start, base)
		}
	}
	if covered == size {
		t.Errorf("arena [%#x, %#x) still mapped after Close", base, base+size)
	}
}

func newSlab(t testing.TB, cfg Config) *Slab {
	t.Helper()
	s, err := New(cfg)
	require.NoError(t, err)
	b, n := s.Arena()
	t.Cleanup(func() {
		err := s.Close()
		if err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("close: %v", err)
		}
		if err == nil {
			assertUnmapped(t, b, n)
		}
	})
	return s
}

var modes = []struct {
	name string
	cfg  Config
}{
	{"single", Config{Size: 64 << 20}},
	{"dual", Config{Size: 64 << 20, DualMap: true}},
}

func forModes(t *testing.T, f func(t *testing.T, cfg Config)) {
	for _, m := range modes {
		t.Run("map="+m.name, func(t *testing.T) { f(t, m.cfg) })
	}
}

// newPacker returns a Packer of s for prot with one-page chunks.
func newPacker(t testing.TB, s *Slab, prot Prot) *Packer {
	t.Helper()
	p, err := s.NewPacker(prot, 0)
	require.NoError(t, err)
	return p
}

// rounds is n, or short under -short.
func rounds(n, short int) int {
	if testing.Short() {
		return short
	}
	return n
}

func view(addr, n uintptr) []byte { return sysmem.View(addr, n) }

func TestProtCheck(t *testing.T) {
	tests := []struct {
		p    Prot
		want error
		str  string
	}{
		{ProtNone, nil, "---"},
		{ProtRead, nil, "r--"},
		{ProtRW, nil, "rw-"},
		{ProtRX, nil, "r-x"},
		{ProtRead | ProtWrite | ProtExec, ErrWriteExec, "rwx"},
		{ProtWrite | ProtExec, ErrWriteExec, "-wx"},
		{ProtExec, ErrExecOnly, "--x"},
		{Prot(8), ErrBadProt, "Prot(0x8)"},
	}
	for _, tc := range tests {
		assert.ErrorIs(t, tc.p.Check(), tc.want, "%v", tc.p)
		if tc.want == nil {
			assert.NoError(t, tc.p.Check())
		}
		assert.Equal(t, tc.str, tc.p.String())
	}
}

func TestNewConfig(t *testing.T) {
	_, err := New(Config{Size: MaxNearSize + 1, Near: true})
	require.ErrorIs(t, err, ErrBadSize)
	s := newSlab(t, Config{Size: MaxNearSize, Near: true})
	b, n := s.Arena()
	assert.Equal(t, uintptr(MaxNearSize), n)
	assert.Zero(t, b%s.PageSize())
	require.NoError(t, s.Verify(true))

	d := newSlab(t, Config{})
	_, n = d.Arena()
	assert.Equal(t, uintptr(DefaultSize), n)
}

// TestNearWindow reserves regions until a Near arena is full and checks
// every pair is within rel32 reach.
func TestNearWindow(t *testing.T) {
	s := newSlab(t, Config{Size: 256 << 20, Near: true})
	var rs []Region
	for {
		r, err := s.Reserve(16 << 20)
		if errors.Is(err, ErrNoSpace) {
			break
		}
		require.NoError(t, err)
		rs = append(rs, r)
	}
	require.Len(t, rs, 16)
	lo, hi := rs[0].Base(), rs[0].End()
	for _, r := range rs {
		lo, hi = min(lo, r.Base()), max(hi, r.End())
	}
	assert.Less(t, hi-lo, uintptr(1)<<31)
	for _, r := range rs {
		require.NoError(t, s.Release(r))
	}
}

func TestReserveWriteProtectRelease(t *testing.T) {
	forModes(t, func(t *testing.T, cfg Config) {
		s := newSlab(t, cfg)
		pg := s.PageSize()
		r, err := s.Reserve(3*pg - 100)
		require.NoError(t, err)
		require.Equal(t, 3*pg, r.Size())
		base := r.Base()

		// Three segments as the LLVM memory manager lays them out: R, RW, RX,
		// each with content shorter than its span (rest zero-filled).
		ro := bytes.Repeat([]byte{0xaa}, 100)
		rw := bytes.Repeat([]byte{0xbb}, 10)
		rx := bytes.Repeat([]byte{0xcc}, int(pg))
		// Dirty the memory first so zero-fill is observable.
		require.NoError(t, s.Write(base, bytes.Repeat([]byte{0xee}, int(3*pg)), 3*pg))
		require.NoError(t, s.Write(base, ro, pg))
		require.NoError(t, s.Write(base+pg, rw, pg))
		require.NoError(t, s.Write(base+2*pg, rx, pg))

		require.NoError(t, s.Protect(base, 100, ProtRead)) // rounds to the page
		require.NoError(t, s.Protect(base+pg, pg, ProtRW)) // no change: no syscall
		require.NoError(t, s.Protect(base+2*pg, pg, ProtRX))
		require.NoError(t, s.Verify(true))

		got := view(base, 3*pg)
		assert.Equal(t, ro, got[:100])
		assert.Equal(t, make([]byte, pg-100), got[100:pg], "zero fill after content")
		assert.Equal(t, rw, got[pg:pg+10])
		assert.Equal(t, make([]byte, pg-10), got[pg+10:2*pg])
		assert.Equal(t, rx, got[2*pg:])

		assert.False(t, s.IsExecutable(base, 1))
		assert.False(t, s.IsExecutable(base+pg, 1))
		assert.True(t, s.IsExecutable(base+2*pg, pg))
		assert.True(t, s.IsExecutable(base+2*pg+5, 0))
		assert.False(t, s.IsExecutable(base+pg, pg+1), "range straddling into a data page")

		got2, ok := s.Lookup(base+pg+5, 10)
		require.True(t, ok)
		assert.Equal(t, r, got2)
		_, ok = s.Lookup(base+3*pg-1, 2)
		assert.False(t, ok, "range leaving the region")

		// Writing into read-only or executable pages is refused, not a crash.
		assert.ErrorIs(t, s.Write(base, []byte{1}, 1), ErrNotWritable)
		assert.ErrorIs(t, s.Write(base+2*pg, []byte{1}, 1), ErrNotWritable)

		require.NoError(t, s.Release(r))
		assert.False(t, s.IsExecutable(base+2*pg, 1))
		require.NoError(t, s.Verify(true))
	})
}

func TestWriteExecuteRefused(t *testing.T) {
	forModes(t, func(t *testing.T, cfg Config) {
		s := newSlab(t, cfg)
		r, err := s.Reserve(1)
		require.NoError(t, err)
		before := s.Stats().Protects
		for _, p := range []Prot{ProtRead | ProtWrite | ProtExec, ProtWrite | ProtExec} {
			err := s.Protect(r.Base(), 1, p)
			require.ErrorIs(t, err, ErrWriteExec)
			var se *Error
			require.ErrorAs(t, err, &se)
			assert.Equal(t, "protect", se.Op)
			assert.Contains(t, err.Error(), "slab: protect [")
		}
		assert.ErrorIs(t, s.Protect(r.Base(), 1, ProtExec), ErrExecOnly)
		_, err = s.NewPacker(ProtRW|ProtExec, 0)
		assert.ErrorIs(t, err, ErrWriteExec)
		assert.Equal(t, before, s.Stats().Protects, "refused protections make no syscall")
		require.NoError(t, s.Verify(true))
	})
}

// TestOneProtectPerTransition pins the system-call budget of the hot
// cycle: reserve (cache hit: none), write, protect RX (one), release (one,
// back to RW).
func TestOneProtectPerTransition(t *testing.T) {
	forModes(t, func(t *testing.T, cfg Config) {
		s := newSlab(t, cfg)
		const size = 64 << 10
		content := bytes.Repeat([]byte{0x90}, size-123)

		st0 := s.Stats()
		r, err := s.Reserve(size)
		require.NoError(t, err)
		st1 := s.Stats()
		assert.Equal(t, uint64(1), st1.Protects-st0.Protects, "fresh pages: one NONE->RW")

		for i := range 5 {
			if i > 0 {
				r, err = s.Reserve(size)
				require.NoError(t, err)
			}
			a := s.Stats()
			require.NoError(t, s.Write(r.Base(), content, size))
			b := s.Stats()
			require.NoError(t, s.Protect(r.Base(), size, ProtRX))
			c := s.Stats()
			require.NoError(t, s.Release(r))
			d := s.Stats()
			assert.Equal(t, uint64(0), b.Protects-a.Protects, "write: no protection change")
			assert.Equal(t, uint64(1), c.Protects-b.Protects, "RW->RX: exactly one")
			assert.Equal(t, uint64(1), c.Flushes-b.Flushes, "one flush for the executable transition")
			assert.Equal(t, uint64(1), d.Protects-c.Protects, "release RX->RW: exactly one")
			if i > 0 {
				assert.Equal(t, uint64(0), a.Protects-st1.Protects-uint64(2*i), "cache hit: no syscall on reserve")
				assert.Equal(t, uint64(0), b.Madvises-a.Madvises, "recycled pages are already populated")
			}
		}
		// Mixed segments of one region: one syscall per segment.
		r, err = s.Reserve(4 * s.PageSize())
		require.NoError(t, err)
		a := s.Stats().Protects
		pg := s.PageSize()
		require.NoError(t, s.Protect(r.Base(), pg, ProtRead))
		require.NoError(t, s.Protect(r.Base()+2*pg, 2*pg, ProtRX))
		assert.Equal(t, uint64(2), s.Stats().Protects-a)
		require.NoError(t, s.Release(r))
		assert.Equal(t, uint64(3), s.Stats().Protects-a, "release resets the whole region in one call")
	})
}

func TestPrefault(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode PrefaultMode
	}{{"auto", PrefaultAuto}, {"touch", PrefaultTouch}, {"none", PrefaultNone}} {
		t.Run("prefault="+tc.name, func(t *testing.T) {
			s := newSlab(t, Config{Size: 16 << 20, Prefault: tc.mode})
			pg := s.PageSize()
			r, err := s.Reserve(8 * pg)
			require.NoError(t, err)
			a := s.Stats()
			// Content starts mid-page: the touch must land inside our span.
			require.NoError(t, s.Write(r.Base()+10, []byte("hello"), 8*pg-10))
			b := s.Stats()
			switch tc.mode {
			case PrefaultAuto:
				if sup, _ := PopulateSupported(); sup {
					assert.Equal(t, uint64(1), b.Populates-a.Populates, "one populate for all 8 pages")
				} else {
					assert.Equal(t, uint64(8), b.Touches-a.Touches)
				}
			case PrefaultTouch:
				assert.Equal(t, uint64(8), b.Touches-a.Touches)
				assert.Zero(t, b.Populates-a.Populates)
			case PrefaultNone:
				assert.Zero(t, b.Populates-a.Populates+b.Touches-a.Touches)
			}
			require.NoError(t, s.Write(r.Base(), []byte("again"), 8*pg))
			c := s.Stats()
			assert.Zero(t, c.Populates-b.Populates+c.Touches-b.Touches, "present pages are not pre-faulted again")
			assert.Equal(t, []byte("again"), view(r.Base(), 5))
			require.NoError(t, s.Release(r))
		})
	}
}

// TestPopulateDetected fails if the kernel should have MADV_POPULATE_WRITE
// (>= 5.14) but the slab decided it has not: detection must not rot.
func TestPopulateDetected(t *testing.T) {
	s := newSlab(t, Config{Size: 1 << 20})
	r, err := s.Reserve(1)
	require.NoError(t, err)
	require.NoError(t, s.Write(r.Base(), []byte{1}, 1))
	sup, known := PopulateSupported()
	require.True(t, known)
	var u syscall.Utsname
	require.NoError(t, syscall.Uname(&u))
	rel := make([]byte, 0, 65)
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		rel = append(rel, byte(c))
	}
	var major, minor int
	parts := strings.SplitN(string(rel), ".", 3)
	if len(parts) >= 2 {
		major, _ = strconv.Atoi(parts[0])
		minor, _ = strconv.Atoi(strings.TrimLeftFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	}
	if major > 5 || (major == 5 && minor >= 14) {
		assert.True(t, sup, "kernel %s has MADV_POPULATE_WRITE but it was not detected", rel)
	} else {
		t.Logf("kernel %s: populate supported=%t", rel, sup)
	}
}

func TestReleaseErrors(t *testing.T) {
	forModes(t, func(t *testing.T, cfg Config) {
		s := newSlab(t, cfg)
		other := newSlab(t, Config{Size: 1 << 20})
		r, err := s.Reserve(1)
		require.NoError(t, err)
		require.NoError(t, s.Release(r))
		err = s.Release(r)
		require.ErrorIs(t, err, ErrDoubleFree)
		assert.Contains(t, err.Error(), "slab: release [")

		// The same pages handed out again: the stale handle must not free them.
		r2, err := s.Reserve(1)
		require.NoError(t, err)
		require.Equal(t, r.Base(), r2.Base(), "cache hands back the same pages")
		require.ErrorIs(t, s.Release(r), ErrDoubleFree)
		assert.True(t, s.Contains(r2))
		assert.False(t, s.Contains(r))

		ro, err := other.Reserve(1)
		require.NoError(t, err)
		require.ErrorIs(t, s.Release(ro), ErrForeign)
		require.ErrorIs(t, s.Release(Region{}), ErrForeign)
		require.ErrorIs(t, s.ReleaseAt(r2.Base()+1), ErrNotMapped)
		require.ErrorIs(t, s.ReleaseAt(ro.Base()), ErrNotMapped)
		require.NoError(t, s.ReleaseAt(r2.Base()))
		require.ErrorIs(t, s.ReleaseAt(r2.Base()), ErrNotMapped)

		// Foreign ranges in Write/Protect.
		require.ErrorIs(t, s.Write(ro.Base(), []byte{1}, 1), ErrNotMapped)
		require.ErrorIs(t, s.Protect(ro.Base(), 1, ProtRead), ErrNotMapped)
		require.ErrorIs(t, s.Protect(^uintptr(0)-10, 100, ProtRead), ErrNotMapped)
		require.ErrorIs(t, s.Write(0, []byte{1, 2}, 1), ErrBadSize)
		_, err = s.Reserve(0)
		require.ErrorIs(t, err, ErrBadSize)
		_, err = s.Reserve(1 << 40)
		require.ErrorIs(t, err, ErrNoSpace)
		require.NoError(t, other.Release(ro))
		require.NoError(t, s.Verify(true))
	})
}

func TestSyncCores(t *testing.T) {
	s, err := New(Config{Size: 1 << 20, SyncCores: true})
	if errors.Is(err, ErrNotSupported) {
		t.Skipf("kernel lacks membarrier sync-core: %v", err)
	}
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close()) }()
	r, err := s.Reserve(1)
	require.NoError(t, err)
	require.NoError(t, s.Protect(r.Base(), 1, ProtRX))
	p, err := s.NewPacker(ProtRX, 0)
	require.NoError(t, err)
	b, err := p.Alloc(8, 8)
	require.NoError(t, err)
	require.NoError(t, p.Close())
	require.NoError(t, s.FreeBlock(b))
	require.NoError(t, s.Release(r))
}

func TestBusy(t *testing.T) {
	s := newSlab(t, Config{Size: 1 << 20})
	r, err := s.Reserve(1)
	require.NoError(t, err)
	s.mu.Lock()
	r.rec.writers++ // as Write does around its copy
	s.mu.Unlock()
	assert.ErrorIs(t, s.Protect(r.Base(), 1, ProtRX), ErrBusy)
	assert.ErrorIs(t, s.Release(r), ErrBusy)
	assert.ErrorIs(t, s.Close(), ErrBusy)
	s.mu.Lock()
	r.rec.writers--
	s.mu.Unlock()
	require.NoError(t, s.Release(r))
}

func TestCacheAndDecommit(t *testing.T) {
	forModes(t, func(t *testing.T, cfg Config) {
		cfg.Size = 16 * 4096
		if p := uintptr(os.Getpagesize()); p != 4096 {
			cfg.Size = 16 * p
		}
		cfg.MaxCached = 4 * uintptr(os.Getpagesize())
		s := newSlab(t, cfg)
		pg := s.PageSize()
		var rs []Region
		for range 16 {
			r, err := s.Reserve(pg)
			require.NoError(t, err)
			require.NoError(t, s.Write(r.Base(), []byte{1}, pg))
			rs = append(rs, r)
		}
		_, err := s.Reserve(pg)
		require.ErrorIs(t, err, ErrNoSpace)
		// Free every other page: 4 fit the cache, the rest are decommitted.
		for i := 0; i < 16; i += 2 {
			require.NoError(t, s.Release(rs[i]))
		}
		st := s.Stats()
		assert.Equal(t, 4*pg, st.CachedBytes)
		assert.Equal(t, uint64(4), st.Decommits)
		require.NoError(t, s.Verify(true))
		// No two free pages are adjacent: a 2-page request cannot fit.
		_, err = s.Reserve(2 * pg)
		require.ErrorIs(t, err, ErrNoSpace)
		require.NoError(t, s.Verify(true))
		for i := 1; i < 16; i += 2 {
			require.NoError(t, s.Release(rs[i]))
		}
		// Everything free, partly cached: the whole arena must still be
		// obtainable (cached spans decommitted and coalesced).
		r, err := s.Reserve(16 * pg)
		require.NoError(t, err)
		require.NoError(t, s.Verify(true))
		require.NoError(t, s.Release(r))

		nc := newSlab(t, Config{Size: 1 << 20, NoCache: true, DualMap: cfg.DualMap})
		r, err = nc.Reserve(pg)
		require.NoError(t, err)
		require.NoError(t, nc.Release(r))
		assert.Equal(t, uint64(1), nc.Stats().Decommits)
		assert.Zero(t, nc.Stats().CachedBytes)
		require.NoError(t, nc.Verify(true))
	})
}

func TestClose(t *testing.T) {
	forModes(t, func(t *testing.T, cfg Config) {
		s, err := New(cfg)
		require.NoError(t, err)
		base, size := s.Arena()
		r, err := s.Reserve(1)
		require.NoError(t, err)
		require.NoError(t, s.Protect(r.Base(), 1, ProtRX))
		require.True(t, s.IsExecutable(r.Base(), 1))
		require.NoError(t, s.Close())
		assert.False(t, s.IsExecutable(r.Base(), 1))
		assert.ErrorIs(t, s.Close(), ErrClosed)
		_, err = s.Reserve(1)
		assert.ErrorIs(t, err, ErrClosed)
		assert.ErrorIs(t, s.Release(r), ErrClosed)
		assert.ErrorIs(t, s.Write(r.Base(), nil, 1), ErrClosed)
		assert.ErrorIs(t, s.Protect(r.Base(), 1, ProtRead), ErrClosed)
		_, ok := s.Lookup(r.Base(), 1)
		assert.False(t, ok)
		assertUnmapped(t, base, size)
	})
}

func TestFreeList(t *testing.T) {
	var f freeList
	f.insert(10, 5, false)
	f.insert(0, 5, false)
	f.insert(5, 5, false) // bridges both
	require.Equal(t, []span{{0, 15, false}}, f.spans)
	f.insert(20, 2, true)
	f.insert(15, 5, true) // merges with next (cached), not prev (not cached)
	require.Equal(t, []span{{0, 15, false}, {15, 7, true}}, f.spans)
	s, ok := f.take(3, true)
	require.True(t, ok)
	assert.Equal(t, uintptr(15), s)
	_, ok = f.take(16, false)
	assert.False(t, ok)
	f.spans[1].cached = false
	f.coalesce()
	require.Equal(t, []span{{0, 15, false}, {18, 4, false}}, f.spans, "the taken pages keep them apart")
	f.insert(15, 3, false)
	require.Equal(t, []span{{0, 22, false}}, f.spans)
	s, ok = f.take(22, false)
	require.True(t, ok)
	assert.Zero(t, s)
	assert.Empty(t, f.spans)
	// Best fit prefers the smallest span that fits.
	f.insert(0, 10, false)
	f.insert(20, 3, false)
	f.insert(30, 5, false)
	s, _ = f.take(4, false)
	assert.Equal(t, uintptr(30), s)
	assert.Equal(t, uintptr(14), f.freePages())
}

// TestHammer runs concurrent reserve/write/protect/verify/release cycles
// with lock-free IsExecutable readers, then checks the model against the
// kernel.
func TestHammer(t *testing.T) {
	forModes(t, func(t *testing.T, cfg Config) {
		s := newSlab(t, cfg)
		const P = 8
		n := rounds(300, 50)
		var wg sync.WaitGroup
		stop := make(chan struct{})
		base, size := s.Arena()
		wg.Add(1)
		go func() { // reader
			defer wg.Done()
			rng := rand.New(rand.NewPCG(1, 2))
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = s.IsExecutable(base+uintptr(rng.Uint64N(uint64(size))), 64)
			}
		}()
		var workers sync.WaitGroup
		for g := range P {
			workers.Add(1)
			go func() {
				defer workers.Done()
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("worker %d panicked: %v", g, r)
					}
				}()
				rng := rand.New(rand.NewPCG(uint64(g), 7))
				pg := s.PageSize()
				for i := range n {
					sz := uintptr(1 + rng.IntN(int(6*pg)))
					r, err := s.Reserve(sz)
					if err != nil {
						t.Errorf("reserve: %v", err)
						return
					}
					pat := bytes.Repeat([]byte{byte(g), byte(i)}, int(sz/2))
					if err := s.Write(r.Base(), pat, r.Size()); err != nil {
						t.Errorf("write: %v", err)
						return
					}
					p := []Prot{ProtRead, ProtRX, ProtRW}[rng.IntN(3)]
					if err := s.Protect(r.Base(), r.Size(), p); err != nil {
						t.Errorf("protect: %v", err)
						return
					}
					if got := view(r.Base(), uintptr(len(pat))); !bytes.Equal(got, pat) {
						t.Errorf("content of %#x corrupted", r.Base())
						return
					}
					if s.IsExecutable(r.Base(), r.Size()) != (p == ProtRX) {
						t.Errorf("IsExecutable wrong for %v", p)
					}
					if err := s.Release(r); err != nil {
						t.Errorf("release: %v", err)
						return
					}
				}
			}()
		}
		workers.Wait()
		close(stop)
		wg.Wait()
		require.NoError(t, s.Verify(true))
		st := s.Stats()
		assert.Zero(t, st.LiveRegions)
		assert.Equal(t, st.Reserves, st.Releases)
	})
}

// TestAllocFinalizeFreeAllocs pins the hot cycle at zero Go allocations.
func TestAllocFinalizeFreeAllocs(t *testing.T) {
	for _, m := range modes {
		s := newSlab(t, m.cfg)
		for _, size := range []uintptr{4 << 10, 64 << 10} {
			content := make([]byte, size)
			cycle := func() {
				r, err := s.Reserve(size)
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Write(r.Base(), content, size); err != nil {
					t.Fatal(err)
				}
				if err := s.Protect(r.Base(), size, ProtRX); err != nil {
					t.Fatal(err)
				}
				if err := s.Release(r); err != nil {
					t.Fatal(err)
				}
			}
			cycle() // warm up: record pool, slices
			if n := testing.AllocsPerRun(100, cycle); n != 0 {
				t.Errorf("map=%s size=%d: %v allocs per alloc-finalize-free, want 0", m.name, size, n)
			}
		}
	}
}
