//go:build cgo && (amd64 || arm64)

package membench

import (
	"encoding/binary"
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/orcgo/orcrt/internal/cmem"
	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/slab"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 && slab.LiveSlabs() != 0 {
		fmt.Fprintf(os.Stderr, "membench: %d slabs not closed\n", slab.LiveSlabs())
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

var sizes = []struct {
	name string
	n    uintptr
}{{"4KiB", 4 << 10}, {"64KiB", 64 << 10}}

func newSlab(tb testing.TB, cfg slab.Config) *slab.Slab {
	tb.Helper()
	s, err := slab.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Error(err)
		}
	})
	return s
}

// allocFinalizeFree is the benchmarked cycle: reserve, write content
// (zero-filling the tail), make it executable (protect + flush), free.
func allocFinalizeFree(tb testing.TB, s *slab.Slab, content []byte, size uintptr) {
	r, err := s.Reserve(size)
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.Write(r.Base(), content, size); err != nil {
		tb.Fatal(err)
	}
	if err := s.Protect(r.Base(), size, slab.ProtRX); err != nil {
		tb.Fatal(err)
	}
	if err := s.Release(r); err != nil {
		tb.Fatal(err)
	}
}

func BenchmarkSlab(b *testing.B) {
	for _, sz := range sizes {
		content := make([]byte, sz.n-64) // 64 bytes of zero-fill
		for i := range content {
			content[i] = byte(i)
		}
		for _, mode := range []struct {
			name string
			dual bool
		}{{"single", false}, {"dual", true}} {
			b.Run(fmt.Sprintf("op=alloc-finalize-free/size=%s/map=%s", sz.name, mode.name), func(b *testing.B) {
				s := newSlab(b, slab.Config{Size: 64 << 20, DualMap: mode.dual})
				allocFinalizeFree(b, s, content, sz.n) // warm up
				before := s.Stats()
				b.SetBytes(int64(sz.n))
				b.ReportAllocs()
				for b.Loop() {
					allocFinalizeFree(b, s, content, sz.n)
				}
				st := s.Stats()
				b.ReportMetric(float64(st.Protects-before.Protects)/float64(b.N), "protects/op")
			})
		}
		b.Run(fmt.Sprintf("op=memmove/size=%s", sz.name), func(b *testing.B) {
			dst := make([]byte, sz.n)
			b.SetBytes(int64(sz.n))
			b.ReportAllocs()
			for b.Loop() {
				copy(dst, content)
				clear(dst[len(content):])
			}
		})
	}
}

// BenchmarkFill separates page-fault cost from copy cost: writing 64 KiB
// into pages that are already present (copy only) against writing into
// freshly decommitted pages with each pre-fault strategy. The decommit
// and re-reserve between iterations are excluded from the timing.
func BenchmarkFill(b *testing.B) {
	for _, sz := range sizes {
		content := make([]byte, sz.n)
		b.Run(fmt.Sprintf("pages=present/size=%s", sz.name), func(b *testing.B) {
			s := newSlab(b, slab.Config{Size: 16 << 20})
			r, err := s.Reserve(sz.n)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(sz.n))
			for b.Loop() {
				if err := s.Write(r.Base(), content, sz.n); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, pf := range []struct {
			name string
			mode slab.PrefaultMode
		}{{"populate", slab.PrefaultAuto}, {"touch", slab.PrefaultTouch}, {"none", slab.PrefaultNone}} {
			b.Run(fmt.Sprintf("pages=fresh/prefault=%s/size=%s", pf.name, sz.name), func(b *testing.B) {
				s := newSlab(b, slab.Config{Size: 16 << 20, NoCache: true, Prefault: pf.mode})
				b.SetBytes(int64(sz.n))
				for b.Loop() {
					b.StopTimer()
					r, err := s.Reserve(sz.n) // decommitted pages: not present
					if err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					if err := s.Write(r.Base(), content, sz.n); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					if err := s.Release(r); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
			})
		}
	}
}

func placeCode(tb testing.TB, s *slab.Slab, code []byte) uintptr {
	r, err := s.Reserve(uintptr(len(code)))
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.Write(r.Base(), code, r.Size()); err != nil {
		tb.Fatal(err)
	}
	if err := s.Protect(r.Base(), r.Size(), slab.ProtRX); err != nil {
		tb.Fatal(err)
	}
	return r.Base()
}

func BenchmarkNativeCall(b *testing.B) {
	b.Run("kind=cgo-empty", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			cmem.CallEmpty()
		}
	})
	b.Run("kind=cgo-same-signature", func(b *testing.B) {
		args := make([]byte, 16)
		dst := make([]byte, 0, 8)
		b.ReportAllocs()
		for b.Loop() {
			if noopSameSignature(1, args, dst) != 8 {
				b.Fatal("bad result")
			}
		}
	})
	b.Run("kind=cgo-frame", func(b *testing.B) {
		args := make([]byte, 16)
		dst := make([]byte, 0, 64)
		b.ReportAllocs()
		for b.Loop() {
			noopFrame(args, dst)
		}
	})
	b.Run("kind=wrapper", func(b *testing.B) {
		s := newSlab(b, slab.Config{Size: 1 << 20})
		fn := placeCode(b, s, echoCode)
		args := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 0x1122334455667788), 8)
		dst := make([]byte, 0, 64) // the executor passes 256 (entry) or 512 (alloc)
		b.ReportAllocs()
		for b.Loop() {
			out, err := native.CallWrapper(fn, args, dst[:0])
			if err != nil || len(out) != 8 {
				b.Fatal(out, err)
			}
		}
	})
}

// TestNativeCallFloor measures the native-call kinds of
// BenchmarkNativeCall robustly on a noisy machine: the kinds take turns,
// blocks of 20,000 calls each, 300 rounds, and each kind's best block
// counts (interference only ever adds time). It prints each kind's cost
// and its ratio to the empty cgo call. Set ORCRT_MEMBENCH_FLOOR=1 to run
// it (it takes a few seconds).
func TestNativeCallFloor(t *testing.T) {
	if os.Getenv("ORCRT_MEMBENCH_FLOOR") != "1" {
		t.Skip("set ORCRT_MEMBENCH_FLOOR=1")
	}
	s := newSlab(t, slab.Config{Size: 1 << 20})
	fn := placeCode(t, s, echoCode)
	args := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 0x1122334455667788), 8)
	dst := make([]byte, 0, 64)
	kinds := []struct {
		name string
		f    func()
	}{
		{"cgo-empty", func() { cmem.CallEmpty() }},
		{"cgo-same-signature", func() { noopSameSignature(1, args, dst) }},
		{"cgo-frame", func() { noopFrame(args, dst) }},
		{"wrapper", func() {
			if out, err := native.CallWrapper(fn, args, dst[:0]); err != nil || len(out) != 8 {
				t.Fatal(out, err)
			}
		}},
	}
	const block, rounds = 20000, 300
	best := make([]time.Duration, len(kinds))
	for i := range best {
		best[i] = time.Hour
	}
	for range rounds {
		for i, k := range kinds {
			start := time.Now()
			for range block {
				k.f()
			}
			best[i] = min(best[i], time.Since(start))
		}
	}
	base := float64(best[0]) / block
	for i, k := range kinds {
		ns := float64(best[i]) / block
		t.Logf("kind=%-20s %6.2f ns/call  %.3f x cgo-empty", k.name, ns, ns/base)
	}
}

// TestBenchOpsBudget pins what the benchmarked slab cycle costs in system
// calls and allocations: one protection change per transition (RW->RX on
// finalize, RX->RW on free; none on a cache-hit reserve) and no Go
// allocation.
func TestBenchOpsBudget(t *testing.T) {
	for _, dual := range []bool{false, true} {
		s := newSlab(t, slab.Config{Size: 64 << 20, DualMap: dual})
		for _, sz := range sizes {
			content := make([]byte, sz.n-64)
			allocFinalizeFree(t, s, content, sz.n)
			a := s.Stats()
			const n = 50
			for range n {
				allocFinalizeFree(t, s, content, sz.n)
			}
			d := s.Stats()
			if got := d.Protects - a.Protects; got != 2*n {
				t.Errorf("dual=%t size=%s: %d protection changes for %d cycles, want %d (one per transition)", dual, sz.name, got, n, 2*n)
			}
			if got := d.Flushes - a.Flushes; got != n {
				t.Errorf("dual=%t size=%s: %d flushes, want %d", dual, sz.name, got, n)
			}
			if got := d.Madvises - a.Madvises; got != 0 {
				t.Errorf("dual=%t size=%s: %d madvise calls on recycled pages, want 0", dual, sz.name, got)
			}
			if allocs := testing.AllocsPerRun(100, func() { allocFinalizeFree(t, s, content, sz.n) }); allocs != 0 {
				t.Errorf("dual=%t size=%s: %v allocs per cycle, want 0", dual, sz.name, allocs)
			}
		}
	}
}
