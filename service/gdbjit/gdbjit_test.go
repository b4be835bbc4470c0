//go:build cgo

package gdbjit_test

import (
	"encoding/hex"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/orcgo/orcrt/internal/cmem"
	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/rt/svctest"
	"github.com/orcgo/orcrt/service/gdbjit"
	"github.com/orcgo/orcrt/sps"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The list is process-global, so the tests of this package run in order
// (no t.Parallel) and reason about what they added.

func checkLinks(t *testing.T, d gdbjit.Descriptor) {
	t.Helper()
	for i, e := range d.Entries {
		assert.NotEqual(t, ^uint64(0), e.SymfileSize, "entry %d has a broken prev link", i)
	}
}

func TestExportedSymbols(t *testing.T) {
	ph, err := native.Dlopen("", native.RTLD_LAZY)
	require.NoError(t, err)
	d, err := native.Dlsym(ph, "__jit_debug_descriptor")
	require.NoError(t, err)
	assert.Equal(t, gdbjit.DescriptorAddr(), d)
	f, err := native.Dlsym(ph, "__jit_debug_register_code")
	require.NoError(t, err)
	assert.Equal(t, gdbjit.RegisterCodeAddr(), f)
	// version is 1 from the start; the layout is {u32, u32, ptr, ptr}.
	assert.Equal(t, []byte{1, 0, 0, 0}, cmem.Bytes(d, 4))
	assert.Equal(t, uint32(1), gdbjit.Snapshot().Version)
}

func TestPushAtHead(t *testing.T) {
	before := gdbjit.Snapshot()
	calls := gdbjit.RegisterCodeCalls()
	e1, err := gdbjit.Register(sps.AddrRange{Start: 0xa0, End: 0xa4}, false)
	require.NoError(t, err)
	assert.Equal(t, calls, gdbjit.RegisterCodeCalls(), "AutoRegisterCode=false must not call the hook")
	e2, err := gdbjit.Register(sps.AddrRange{Start: 0xa1, End: 0xa9}, true)
	require.NoError(t, err)
	assert.Equal(t, calls+1, gdbjit.RegisterCodeCalls())

	d := gdbjit.Snapshot()
	checkLinks(t, d)
	require.Len(t, d.Entries, len(before.Entries)+2)
	assert.Equal(t, gdbjit.Entry{Addr: e2, SymfileAddr: 0xa1, SymfileSize: 8}, d.Entries[0])
	assert.Equal(t, gdbjit.Entry{Addr: e1, SymfileAddr: 0xa0, SymfileSize: 4}, d.Entries[1])
	assert.Equal(t, e2, d.Relevant)
	assert.Equal(t, uint32(gdbjit.JITRegisterFn), d.Action)
	// The last entry is the oldest.
	if len(before.Entries) == 0 {
		assert.Equal(t, e1, gdbjit.LastEntry())
		assert.Equal(t, fmt.Sprintf("__jit_debug_descriptor.last_entry = 0x%016x\n", e1), gdbjit.FormatLastEntry())
	}
	_, err = gdbjit.Register(sps.AddrRange{Start: 8, End: 4}, false)
	assert.Error(t, err)
}

func TestActionOverTheWire(t *testing.T) {
	h := svctest.New(t, gdbjit.Install)
	n := len(gdbjit.Snapshot().Entries)
	// Probe 3's shape: range [X, X+4), AutoRegister=0.
	args := sps.RegisterJITLoaderGDBAction.AppendArgs(nil, sps.AddrRange{Start: 0xd0, End: 0xd4}, false)
	r := h.CallName(gdbjit.RegisterActionName, args)
	assert.Equal(t, "00", hex.EncodeToString(r.Bytes()))
	d := gdbjit.Snapshot()
	require.Len(t, d.Entries, n+1)
	assert.Equal(t, sps.Addr(0xd0), d.Entries[0].SymfileAddr)

	// An empty argument buffer: out-of-band error (Probe 3's last call).
	assert.True(t, h.CallName(gdbjit.RegisterActionName, nil).IsOutOfBandError())
	assert.True(t, h.CallName(gdbjit.RegisterActionName, args[:16]).IsOutOfBandError())
	assert.Len(t, gdbjit.Snapshot().Entries, n+1)
}

func TestConcurrentRegister(t *testing.T) {
	n := len(gdbjit.Snapshot().Entries)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				if _, err := gdbjit.Register(sps.AddrRange{Start: sps.Addr(g<<16 | i), End: sps.Addr(g<<16|i) + 1}, i%2 == 0); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	d := gdbjit.Snapshot()
	checkLinks(t, d)
	assert.Len(t, d.Entries, n+800)
}

func BenchmarkRegister(b *testing.B) {
	b.Run("impl=gdbjit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := gdbjit.Register(sps.AddrRange{Start: 0x1000, End: 0x1004}, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=empty-cgo-call-reference", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			cmem.CallEmpty()
		}
	})
}
