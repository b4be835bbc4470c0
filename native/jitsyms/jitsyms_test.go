//go:build cgo

package jitsyms_test

import (
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/native/jitsyms"
)

// The table is process-global: the tests use disjoint address ranges.

func TestAddLookupRemove(t *testing.T) {
	const base = 0x7100_0000_0000
	jitsyms.Add(base, 0x20, "f")
	jitsyms.Add(base+0x20, 0x10, "g")
	for _, tc := range []struct {
		addr  uint64
		name  string
		start uint64
	}{{base, "f", base}, {base + 0x1f, "f", base}, {base + 0x20, "g", base + 0x20}, {base + 0x2f, "g", base + 0x20}} {
		s, ok := jitsyms.Lookup(tc.addr)
		assert.True(t, ok, "%#x", tc.addr)
		assert.Equal(t, tc.name, s.Name)
		assert.Equal(t, tc.start, s.Start)
		c, ok := jitsyms.Find(tc.addr)
		assert.True(t, ok, "C: %#x", tc.addr)
		assert.Equal(t, tc.name, c.Name, "C")
		assert.Equal(t, tc.start, c.Start, "C")
		assert.Empty(t, c.Module, "C")
	}
	for _, a := range []uint64{base - 1, base + 0x30} {
		_, ok := jitsyms.Lookup(a)
		assert.False(t, ok, "%#x", a)
		_, ok = jitsyms.Find(a)
		assert.False(t, ok, "C: %#x", a)
	}
	// Code reallocated over f's second half replaces f.
	jitsyms.Add(base+0x10, 0x8, "h")
	_, ok := jitsyms.Lookup(base)
	assert.False(t, ok, "f was overwritten")
	s, _ := jitsyms.Lookup(base + 0x12)
	assert.Equal(t, "h", s.Name)
	// A release drops every name in its range.
	jitsyms.RemoveRange(base, base+0x1000)
	for _, a := range []uint64{base + 0x12, base + 0x20} {
		_, ok := jitsyms.Lookup(a)
		assert.False(t, ok)
		_, ok = jitsyms.Find(a)
		assert.False(t, ok)
	}
	jitsyms.Add(base, 0, "empty")
	_, ok = jitsyms.Lookup(base)
	assert.False(t, ok, "a zero size names nothing")
}

// TestConcurrentPublish: C readers see a consistent table while Go
// publishes new ones (run under -race and with many goroutines).
func TestConcurrentPublish(t *testing.T) {
	const base = 0x7200_0000_0000
	jitsyms.Add(base, 0x100, "stable")
	var wg sync.WaitGroup
	stop := make(chan struct{})
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
				s, ok := jitsyms.Find(base + 0x10)
				if !ok || s.Name != "stable" || s.Start != base {
					t.Errorf("reader saw %q %#x %v", s.Name, s.Start, ok)
					return
				}
			}
		}()
	}
	for i := range uint64(2000) {
		jitsyms.Add(base+0x1000+i*0x10, 0x10, "churn")
		if i%2 == 1 {
			jitsyms.RemoveRange(base+0x1000+(i-1)*0x10, base+0x1000+(i+1)*0x10)
		}
	}
	close(stop)
	wg.Wait()
	jitsyms.RemoveRange(base, base+0x100000)
}

// TestNameBound: past the bound on distinct names a new one is not
// added, so a controller cannot grow the process without end; known
// names still are.
func TestNameBound(t *testing.T) {
	const base = 0x7300_0000_0000
	old := jitsyms.SetMaxNames(jitsyms.NameCount() + 10)
	defer jitsyms.SetMaxNames(old)
	var syms []jitsyms.Sym
	for i := range uint64(20) {
		syms = append(syms, jitsyms.Sym{Start: base + i*16, End: base + i*16 + 16, Name: fmt.Sprintf("bound%d", i)})
	}
	jitsyms.AddAll(syms)
	_, ok := jitsyms.Lookup(base + 15*16)
	assert.False(t, ok, "a name past the bound")
	s, ok := jitsyms.Lookup(base + 5*16)
	assert.True(t, ok, "a name within the bound")
	assert.Equal(t, "bound5", s.Name)
	jitsyms.Add(base+15*16, 16, "bound1")
	s, ok = jitsyms.Lookup(base + 15*16)
	assert.True(t, ok, "a known name")
	assert.Equal(t, "bound1", s.Name)
	// A module name counts as a name: past the bound the symbol is kept
	// without it.
	jitsyms.AddAll([]jitsyms.Sym{{Start: base + 16*16, End: base + 17*16, Name: "bound2", Module: "new.c"}})
	s, ok = jitsyms.Lookup(base + 16*16)
	assert.True(t, ok)
	assert.Equal(t, jitsyms.Sym{Start: base + 16*16, End: base + 17*16, Name: "bound2"}, s)
	jitsyms.RemoveRange(base, base+20*16)
}

// TestAddAll: a batch replaces the old names it overlaps, keeps the first
// of new ones that overlap one another, and leaves the rest findable.
func TestAddAll(t *testing.T) {
	const base = 0x7400_0000_0000
	jitsyms.Add(base, 0x100, "old")
	jitsyms.Add(base+0x300, 0x10, "kept")
	var batch []jitsyms.Sym
	for i := range uint64(1000) {
		batch = append(batch, jitsyms.Sym{Start: base + 0x1000 + i*0x10, End: base + 0x1000 + i*0x10 + 0x10, Name: "many"})
	}
	batch = append(batch,
		jitsyms.Sym{Start: base + 0x205, End: base + 0x215, Name: "n3"},
		jitsyms.Sym{Start: base + 0x80, End: base + 0x90, Name: "n1"},
		jitsyms.Sym{Start: base + 0x200, End: base + 0x210, Name: "n2"})
	jitsyms.AddAll(batch)
	for addr, want := range map[uint64]string{base + 0x85: "n1", base + 0x205: "n2", base + 0x300: "kept", base + 0x1000 + 999*0x10: "many"} {
		s, ok := jitsyms.Lookup(addr)
		assert.True(t, ok, "%#x", addr)
		assert.Equal(t, want, s.Name, "%#x", addr)
		c, ok := jitsyms.Find(addr)
		assert.True(t, ok, "C: %#x", addr)
		assert.Equal(t, want, c.Name, "C: %#x", addr)
	}
	for _, addr := range []uint64{base, base + 0x212} {
		_, ok := jitsyms.Lookup(addr)
		assert.False(t, ok, "%#x: old was overlapped, n3 overlapped n2", addr)
	}
	jitsyms.RemoveRange(base, base+0x10000)
}

// TestDescribe: the report line of a signal names the JIT'd function and
// its module, when known, and fits its buffer.
func TestDescribe(t *testing.T) {
	const base = 0x7500_0000_0000
	const segvMapErr = 1 // si_code of a fault on an unmapped address
	jitsyms.AddAll([]jitsyms.Sym{
		{Start: base, End: base + 0x40, Name: "filter", Module: "rules.c"},
		{Start: base + 0x40, End: base + 0x80, Name: "perf_named"},
		{Start: base + 0x80, End: base + 0x90, Name: strings.Repeat("long", 50), Module: "m.c"},
	})
	defer jitsyms.RemoveRange(base, base+0x1000)
	for _, tc := range []struct {
		prefix    string
		sig, code int
		pc        uint64
		line      string
		jit       bool
	}{
		{"orcrt jit: ", int(syscall.SIGSEGV), segvMapErr, base + 0x12,
			"orcrt jit: SIGSEGV (segmentation fault) in native code, address 0x10, pc 0x750000000012 in filter+0x12 (module rules.c)\n", true},
		{"orcrt-executor: ", int(syscall.SIGBUS), segvMapErr, base + 0x45,
			"orcrt-executor: SIGBUS (bus error) in native code, address 0x10, pc 0x750000000045 in perf_named+0x5\n", true},
		{"orcrt jit: ", int(syscall.SIGSEGV), segvMapErr, base - 1,
			"orcrt jit: SIGSEGV (segmentation fault) in native code, address 0x10, pc 0x74ffffffffff\n", false},
		// Raised (SI_TKILL): no faulting address; no stack here, so no caller.
		{"orcrt jit: ", int(syscall.SIGABRT), -6, base - 1,
			"orcrt jit: SIGABRT (abort) in native code, pc 0x74ffffffffff\n", false},
	} {
		line, jit := jitsyms.Describe(tc.prefix, tc.sig, tc.code, 0x10, tc.pc)
		assert.Equal(t, tc.line, line)
		assert.Equal(t, tc.jit, jit, tc.line)
	}
	line, jit := jitsyms.Describe("orcrt jit: ", int(syscall.SIGSEGV), segvMapErr, 0x10, base+0x81)
	require.Len(t, line, 160, "cut to the buffer")
	assert.True(t, jit)
	assert.True(t, strings.HasSuffix(line, "longlong\n"), line)
}
