//go:build cgo && (amd64 || arm64)

package alloc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/slab"
	"github.com/orcgo/orcrt/sps"
)

func TestRegistration(t *testing.T) {
	e := newEnv(t, Config{})
	names := []string{MemoryManagerInstanceName, MemoryManagerReserveName, MemoryManagerInitializeName,
		MemoryManagerDeinitializeName, MemoryManagerReleaseName,
		SharedMapperInstanceName, SharedMapperReserveName, SharedMapperInitializeName,
		SharedMapperDeinitializeName, SharedMapperReleaseName}
	seen := map[sps.Addr]string{}
	for _, n := range names {
		a, ok := e.syms.Lookup(n)
		require.True(t, ok, n)
		require.NotZero(t, a, n)
		require.NotContains(t, seen, a, "addresses are unique")
		seen[a] = n
	}
	inst, _ := e.syms.Lookup(MemoryManagerInstanceName)
	assert.Equal(t, e.mm.InstanceAddr(), inst)
	for _, n := range names[1:5] {
		a, _ := e.syms.Lookup(n)
		_, ok := e.s.LookupWrapper(a)
		assert.True(t, ok, "%s is a registered wrapper", n)
	}

	// All-or-nothing: a conflicting name adds nothing.
	syms := rt.NewSymbolTable()
	require.NoError(t, syms.Add(MemoryManagerReleaseName, 0x1234))
	_, err := Register(e.s, syms, Config{})
	var dup *rt.DuplicateSymbolError
	require.ErrorAs(t, err, &dup)
	assert.Equal(t, 1, syms.Len())
	syms = rt.NewSymbolTable()
	require.NoError(t, syms.Add(SharedMapperReserveName, 0x1234))
	_, err = RegisterSharedMemoryMapper(e.s, syms)
	require.ErrorAs(t, err, &dup)
	assert.Equal(t, 1, syms.Len())
}

// TestFullPipelineForOneRWSegment mirrors orc-rt's SimpleNativeMemoryMapTest
// and SimpleNativeMemoryMapSPSCITest (orc-rt/unittests) through the
// wrappers: an RW segment at a 64 KiB offset with 16 content bytes and
// three action pairs.
func TestFullPipelineForOneRWSegment(t *testing.T) {
	e, c := newCodeEnv(t)
	inst := e.mm.InstanceAddr()
	r := e.call(MemoryManagerReserveName, sps.MemoryManagerReserve.AppendArgs(nil, inst, 1<<20))
	require.Equal(t, byte(1), r.Bytes()[0])
	base := sps.Addr(binary.LittleEndian.Uint64(r.Bytes()[1:]))
	segAddr := base + 64<<10
	content := words(41, 0) // sentinel 1 = 41 at +0, sentinel 2 = 0 at +8
	sentinel1, sentinel2 := segAddr, segAddr+8
	fr := sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{seg(sps.Read|sps.Write, segAddr, 0x1000, content)},
		Actions: []sps.ActionPair{
			pair(c.addTo(sentinel1, 1), none),     // sees the content: 41 -> 42
			pair(none, c.addTo(sentinel2, 42)),    // dealloc only
			pair(c.addTo(segAddr+0x800, 0), none), // null dealloc
		},
	}
	// Dirty the zero-fill range first: initialize must clear it.
	copy(mem(segAddr+16, 16), bytes.Repeat([]byte{0xee}, 16))
	r = e.call(MemoryManagerInitializeName, sps.MemoryManagerInitialize.AppendArgs(nil, inst, fr))
	require.Equal(t, okAddr(segAddr), r.Bytes())
	assert.Equal(t, uint64(42), u64At(sentinel1), "finalize actions see the copied content")
	assert.Equal(t, make([]byte, 0x1000-16), mem(segAddr+16, 0x1000-16), "zero-fill reads as 0")
	assert.Equal(t, uint64(0), u64At(sentinel2), "dealloc actions do not run at initialize")
	r = e.call(MemoryManagerDeinitializeName, sps.MemoryManagerDeinitialize.AppendArgs(nil, inst, []sps.Addr{segAddr}))
	require.Equal(t, []byte{0}, r.Bytes())
	assert.Equal(t, uint64(42), u64At(sentinel2), "deinitialize runs the dealloc action")
	r = e.call(MemoryManagerReleaseName, sps.MemoryManagerRelease.AppendArgs(nil, inst, []sps.Addr{base}))
	require.Equal(t, []byte{0}, r.Bytes())
}

func TestReserve(t *testing.T) {
	e := newEnv(t, Config{})
	t.Run("1GiB and release", func(t *testing.T) {
		base, err := e.mm.Reserve(1 << 30)
		require.NoError(t, err)
		mem(base+(1<<30)-8, 8)[0] = 1 // the last page is usable
		require.NoError(t, e.mm.Release([]sps.Addr{base}))
	})
	t.Run("non page multiple is rounded up (LLVM 22; orc-rt would refuse)", func(t *testing.T) {
		base, err := e.mm.Reserve(4097)
		require.NoError(t, err)
		assert.Zero(t, uint64(base)%4096)
		assertProt(t, base+4096, "rw-", "the rounded-up page is mapped read-write")
		// ...but, as in the stock, only the requested size counts as reserved.
		_, err = e.mm.Initialize(&sps.FinalizeRequest{Segments: []sps.SegFinalizeRequest{seg(sps.Read, base+4096, 16, nil)}})
		assert.EqualError(t, err, fmt.Sprintf("In initialize, range %#x -- %#x is not part of any reserved address range", uint64(base)+4096, uint64(base)+4096+16))
		require.NoError(t, e.mm.Release([]sps.Addr{base}))
	})
	t.Run("zero returns address 0 like the stock", func(t *testing.T) {
		a, err := e.mm.Reserve(0)
		require.NoError(t, err)
		assert.Zero(t, a)
		a, err = e.mm.Reserve(0)
		require.NoError(t, err)
		assert.Zero(t, a)
		// Only empty segments at 0 fit in it; nothing is touched.
		key, err := e.mm.Initialize(&sps.FinalizeRequest{Segments: []sps.SegFinalizeRequest{
			seg(sps.Read|sps.Exec, 0, 0, nil), seg(sps.Read|sps.FinalizeLifetime, 0, 0, nil)}})
		require.NoError(t, err)
		assert.Zero(t, key)
		_, err = e.mm.Initialize(&sps.FinalizeRequest{Segments: []sps.SegFinalizeRequest{seg(sps.Read, 0, 1, nil)}})
		assert.EqualError(t, err, "In initialize, range 0x0 -- 0x1 is not part of any reserved address range")
		require.NoError(t, e.mm.Release([]sps.Addr{0}))
		assert.EqualError(t, e.mm.Release([]sps.Addr{0}), "In release, 0x0 is not part of any reserved address range")
	})
	t.Run("absurd size", func(t *testing.T) {
		_, err := e.mm.Reserve(1 << 63)
		assert.EqualError(t, err, "Cannot allocate memory")
		r := e.call(MemoryManagerReserveName, sps.MemoryManagerReserve.AppendArgs(nil, e.mm.InstanceAddr(), ^uint64(0)))
		assert.Equal(t, errPayload(0, "Cannot allocate memory"), r.Bytes())
	})
}

// TestInitializeProtections: each segment gets its protection (visible in
// /proc/self/maps), executable code runs, and the key is the lowest
// segment address.
func TestInitializeProtections(t *testing.T) {
	e := newEnv(t, Config{})
	base := e.reserve(0x4000)
	key, err := e.mm.Initialize(&sps.FinalizeRequest{Segments: []sps.SegFinalizeRequest{
		seg(sps.Read|sps.Exec, base+0x2000, 0x1000, mc.noop),
		seg(sps.Read, base+0x1000, 0x1000, []byte("r")),
		seg(sps.Read|sps.Write, base+0x3000, 0x1000, []byte("rw")),
		seg(sps.Exec, base, 0x1000, mc.noop), // execute-only becomes r-x
	}})
	require.NoError(t, err)
	assert.Equal(t, base, key)
	for off, want := range map[sps.Addr]string{0: "r-x", 0x1000: "r--", 0x2000: "r-x", 0x3000: "rw-"} {
		assertProt(t, base+off, want, "offset %#x", uint64(off))
	}
	require.NoError(t, Runner{Session: e.s}.Run(sps.WrapperCall{Fn: base + 0x2000}))
	require.NoError(t, Runner{Session: e.s}.Run(sps.WrapperCall{Fn: base}))
	require.NoError(t, e.mm.Release([]sps.Addr{base}))
}

// TestInitializeFailureRollback (docs/protocol.md §6.2 step 3 and 5): the
// failure's error comes first, then the cleanup failures in run order,
// joined by "\n"; already-protected segments are reset to read-write; no
// region is recorded.
func TestInitializeFailureRollback(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 16)
	base := e.reserve(0x3000)
	fr := sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{
			seg(sps.Read, base, 0x1000, []byte("read only")),
			seg(sps.Read|sps.Exec, base+0x1000, 0x1000, mc.noop),
			seg(sps.Read|sps.Write, base+0x2000, 0x800, nil),
		},
		Actions: []sps.ActionPair{
			pair(c.rec(l, 1), c.fail("cleanup 1 failed")),
			pair(c.rec(l, 2), c.rec(l, 12)),
			pair(none, c.fail("cleanup 3 failed")),
			pair(c.fail("finalize 4 failed"), c.rec(l, 14)),
			pair(c.rec(l, 5), c.rec(l, 15)),
		},
	}
	_, err := e.mm.Initialize(&fr)
	require.EqualError(t, err, "finalize 4 failed\ncleanup 3 failed\ncleanup 1 failed")
	assert.Equal(t, []uint64{1, 2, 12}, l.entries())
	for _, off := range []sps.Addr{0, 0x1000, 0x2000} {
		assertProt(t, base+off, "rw-", "offset %#x reset to RW", uint64(off))
	}
	copy(mem(base, 8), "scribble") // would fault if still read-only
	assert.Equal(t, 1, e.mm.Stats().Regions, "only the code's region is recorded")

	// The same range initializes again, and the content is rewritten.
	fr.Actions = nil
	key, err := e.mm.Initialize(&fr)
	require.NoError(t, err)
	assert.Equal(t, base, key)
	assert.Equal(t, "read only", string(mem(base, 9)))
	require.NoError(t, e.mm.Release([]sps.Addr{base}))
}

// TestInitializeChecksBeforeWriting: a request reaching outside every
// reservation fails with the stock's error and writes nothing (the stock
// writes first and checks afterwards).
func TestInitializeChecksBeforeWriting(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 4)
	victim := bytes.Repeat([]byte{0x5a}, 8192)
	va := sps.Addr(uintptrOf(victim))
	base := e.reserve(0x2000)
	copy(mem(base, 4), "keep")

	cases := []struct {
		name string
		segs []sps.SegFinalizeRequest
		want string
	}{
		{"go heap", []sps.SegFinalizeRequest{seg(sps.Read|sps.Write, va, 64, []byte("evil"))},
			fmt.Sprintf("In initialize, range %#x -- %#x is not part of any reserved address range", uint64(va), uint64(va)+64)},
		{"second segment outside", []sps.SegFinalizeRequest{
			seg(sps.Read|sps.Write, base, 0x1000, []byte("evil")),
			seg(sps.Read|sps.Write, va, 64, []byte("evil"))},
			fmt.Sprintf("In initialize, range %#x -- %#x is not part of any reserved address range", min(uint64(base), uint64(va)), max(uint64(base)+0x1000, uint64(va)+64))},
		{"runs past the reservation", []sps.SegFinalizeRequest{seg(sps.Read|sps.Write, base+0x1000, 0x1001, []byte("evil"))},
			fmt.Sprintf("In initialize, range %#x -- %#x is not part of any reserved address range", uint64(base)+0x1000, uint64(base)+0x2001)},
		{"address wraps", []sps.SegFinalizeRequest{seg(sps.Read|sps.Write, base, 0x1000, nil), seg(sps.Read, ^sps.Addr(0xfff), 0x2000, nil)},
			fmt.Sprintf("In initialize, range %#x -- %#x is not part of any reserved address range", ^uint64(0xfff), uint64(0x1000))},
		{"W|X refused", []sps.SegFinalizeRequest{seg(sps.Read|sps.Write|sps.Exec, base, 0x1000, []byte("evil"))},
			fmt.Sprintf("alloc: segment %#x: writable and executable protection (RWX) refused (W^X)", uint64(base))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.mm.Initialize(&sps.FinalizeRequest{Segments: tc.segs, Actions: []sps.ActionPair{pair(c.rec(l, 1), none)}})
			require.EqualError(t, err, tc.want)
			assert.Equal(t, bytes.Repeat([]byte{0x5a}, 8192), victim, "nothing written outside")
			assert.Equal(t, "keep", string(mem(base, 4)), "nothing written inside either")
			assertProt(t, base, "rw-")
			assert.Empty(t, l.entries(), "no action ran")
		})
	}
	require.NoError(t, e.mm.Release([]sps.Addr{base}))
}

func TestInitializeOverlaps(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 4)
	base := e.reserve(0x10000)
	b := uint64(base)
	initRW := func(a, size uint64) error {
		_, err := e.mm.Initialize(&sps.FinalizeRequest{
			Segments: []sps.SegFinalizeRequest{seg(sps.Read|sps.Write, sps.Addr(a), size, nil)},
			Actions:  []sps.ActionPair{pair(c.rec(l, a-b), none)},
		})
		return err
	}
	require.NoError(t, initRW(b+0x2000, 0x2000))
	assert.EqualError(t, initRW(b+0x3000, 0x2000),
		fmt.Sprintf("In initialize, region %#x -- %#x overlaps previous region %#x -- %#x", b+0x3000, b+0x5000, b+0x2000, b+0x4000))
	assert.EqualError(t, initRW(b+0x1000, 0x2000),
		fmt.Sprintf("In initialize, region %#x -- %#x overlaps following region %#x -- %#x", b+0x1000, b+0x3000, b+0x2000, b+0x4000))
	assert.EqualError(t, initRW(b, 0x10000),
		fmt.Sprintf("In initialize, region %#x -- %#x overlaps following region %#x -- %#x", b, b+0x10000, b+0x2000, b+0x4000))
	// Adjacent regions do not overlap.
	require.NoError(t, initRW(b+0x1000, 0x1000))
	require.NoError(t, initRW(b+0x4000, 0x1000))
	// As in the stock, a deinitialized region keeps its record.
	require.NoError(t, e.mm.Deinitialize([]sps.Addr{sps.Addr(b + 0x4000)}))
	assert.EqualError(t, initRW(b+0x4000, 0x1000),
		fmt.Sprintf("In initialize, region %#x -- %#x overlaps previous region %#x -- %#x", b+0x4000, b+0x5000, b+0x4000, b+0x5000))
	// An empty region at an existing start is refused (the stock would
	// overwrite that record and lose its dealloc actions).
	assert.EqualError(t, initRW(b+0x2000, 0),
		fmt.Sprintf("In initialize, region %#x -- %#x overlaps previous region %#x -- %#x", b+0x2000, b+0x2000, b+0x2000, b+0x4000))
	assert.Equal(t, []uint64{0x2000, 0x1000, 0x4000}, l.entries(), "only the successful initializes ran actions")
	require.NoError(t, e.mm.Release([]sps.Addr{base}))
}

// TestDeinitializeOrderAndErrors: keys are processed last to first, each
// region's deallocs in reverse; every key is processed and the failures
// are joined in processing order; duplicate keys run nothing twice.
func TestDeinitializeOrderAndErrors(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 16)
	base := e.reserve(0x4000)
	k := func(i int) sps.Addr { return base + sps.Addr(i)*0x1000 }
	for i := range 3 {
		_, err := e.mm.Initialize(&sps.FinalizeRequest{
			Segments: []sps.SegFinalizeRequest{seg(sps.Read, k(i), 0x1000, nil)},
			Actions: []sps.ActionPair{
				pair(none, c.rec(l, uint64(10*i+1))),
				pair(none, c.rec(l, uint64(10*i+2))),
			},
		})
		require.NoError(t, err)
	}
	_, err := e.mm.Initialize(&sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{seg(sps.Read, k(3), 0x1000, nil)},
		Actions:  []sps.ActionPair{pair(none, c.fail("dealloc of region 3 failed")), pair(none, c.rec(l, 32))},
	})
	require.NoError(t, err)
	err = e.mm.Deinitialize([]sps.Addr{k(0), 0x1234000, k(2), k(3), k(0), k(2) + 8})
	assert.Equal(t, []uint64{2, 1, 32, 22, 21}, l.entries())
	assert.EqualError(t, err, strings.Join([]string{
		fmt.Sprintf("In deinitialize, address %#x does not correspond to the start of any initialized region", uint64(k(2))+8),
		"dealloc of region 3 failed",
		"In deinitialize, address 0x1234000 is not part of any reserved address range",
	}, "\n"))
	// k(1) was not deinitialized: release runs its deallocs now.
	l.reset()
	require.NoError(t, e.mm.Release([]sps.Addr{base}))
	assert.Equal(t, []uint64{12, 11}, l.entries())
}

// TestReleaseOrderAndErrors: bases are processed last to first; each
// slab's deallocs are collected over its regions in ascending address
// order and run in reverse; failures are joined; every base is processed.
func TestReleaseOrderAndErrors(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 32)
	bases := e.reserveN(3, 0x3000)
	for s, base := range bases {
		// Regions initialized out of address order.
		for _, i := range []int{2, 0, 1} {
			acts := []sps.ActionPair{
				pair(none, c.rec(l, uint64(100*s+10*i+1))),
				pair(none, c.rec(l, uint64(100*s+10*i+2))),
			}
			if s == 1 && i == 1 {
				acts = append(acts, pair(none, c.fail("slab 1 region 1 failed")))
			}
			_, err := e.mm.Initialize(&sps.FinalizeRequest{
				Segments: []sps.SegFinalizeRequest{seg(sps.Read, base+sps.Addr(i)*0x1000, 0x1000, nil)},
				Actions:  acts,
			})
			require.NoError(t, err)
		}
	}
	err := e.mm.Release([]sps.Addr{bases[0], 0x1234000, bases[1], bases[2]})
	assert.Equal(t, []uint64{
		222, 221, 212, 211, 202, 201,
		122, 121, 112, 111, 102, 101,
		22, 21, 12, 11, 2, 1,
	}, l.entries())
	assert.EqualError(t, err, "slab 1 region 1 failed\nIn release, 0x1234000 is not part of any reserved address range")
	for _, b := range bases {
		assert.EqualError(t, e.mm.Release([]sps.Addr{b}), fmt.Sprintf("In release, %#x is not part of any reserved address range", uint64(b)), "double release")
	}
	assert.NoError(t, e.mm.Release(nil))
	assert.NoError(t, e.mm.Release([]sps.Addr{}))
	assert.Equal(t, 0, e.mm.Stats().Reservations-1, "only the code reservation is left")
}

// TestReleaseRunsActionsBeforeUnmapping: a dealloc action whose code lives
// in the very reservation being released runs before the memory goes, and
// so does one living in another reservation released by the same call.
func TestReleaseRunsActionsBeforeUnmapping(t *testing.T) {
	e := newEnv(t, Config{})
	l := newLog(t, 8)
	codeBase := e.recordingCode(l)
	other := e.reserve(0x1000)
	_, err := e.mm.Initialize(&sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{seg(sps.Read, other, 0x1000, nil)},
		Actions:  []sps.ActionPair{pair(none, sps.WrapperCall{Fn: codeBase, Args: words(uint64(l.p), 2)})},
	})
	require.NoError(t, err)
	// The code slab is processed first (last in the list), the other one
	// after it still calls into the code slab.
	require.NoError(t, e.mm.Release([]sps.Addr{other, codeBase}))
	assert.Equal(t, []uint64{1, 2}, l.entries())
	assert.Zero(t, protAt(t, codeBase)&slab.ProtExec, "released code is no longer executable")
}

// TestShutdownReleasesEverything: the Session's shutdown releases every
// remaining reservation, highest address first, running all outstanding
// dealloc actions; detach alone runs nothing (orc-rt/unittests
// ReserveInitializeShutdown / ReserveInitializeDetachShutdown).
func TestShutdownReleasesEverything(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 32)
	bases := e.reserveN(4, 0x2000)
	for i, base := range bases {
		for j := range 2 {
			_, err := e.mm.Initialize(&sps.FinalizeRequest{
				Segments: []sps.SegFinalizeRequest{seg(sps.Read, base+sps.Addr(j)*0x1000, 0x1000, nil)},
				Actions:  []sps.ActionPair{pair(none, c.rec(l, uint64(i<<8|j<<4|1))), pair(none, c.rec(l, uint64(i<<8|j<<4|2)))},
			})
			require.NoError(t, err)
		}
	}
	// Deinitialized regions have nothing left to run.
	require.NoError(t, e.mm.Deinitialize([]sps.Addr{bases[3] + 0x1000}))
	l.reset()
	e.s.Detach(nil)
	assert.Empty(t, l.entries(), "detach runs nothing")
	e.close()
	order := make([]int, len(bases))
	for i := range order {
		order[i] = i
	}
	// Highest address first.
	for i := range order {
		for j := i + 1; j < len(order); j++ {
			if bases[order[j]] > bases[order[i]] {
				order[i], order[j] = order[j], order[i]
			}
		}
	}
	var want []uint64
	for _, i := range order {
		for _, id := range []uint64{0x12, 0x11, 0x02, 0x01} {
			if i == 3 && id>>4 == 1 {
				continue
			}
			want = append(want, uint64(i<<8)|id)
		}
	}
	assert.Equal(t, want, l.entries())
	for _, b := range bases {
		assert.False(t, mapped(t, b), "unmapped at shutdown")
	}
	_, err := e.mm.Reserve(0x1000)
	assert.ErrorIs(t, err, ErrClosed)
	assert.Zero(t, e.mm.Stats().Arenas)
}

// TestSimpleRemoteLayout replays capture b3 (-use-memmgr=simple-remote):
// one 1 GiB reservation, initializes whose segment sizes are not page
// multiples, deinitialize by key, no release (shutdown unmaps it).
func TestSimpleRemoteLayout(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 8)
	inst := e.mm.InstanceAddr()
	r := e.call(MemoryManagerReserveName, sps.MemoryManagerReserve.AppendArgs(nil, inst, 0x40000000))
	require.Equal(t, byte(1), r.Bytes()[0])
	slabBase := sps.Addr(binary.LittleEndian.Uint64(r.Bytes()[1:]))
	obj := bytes.Repeat([]byte{0x7f}, 0x1860)
	r = e.call(MemoryManagerInitializeName, sps.MemoryManagerInitialize.AppendArgs(nil, inst, sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{seg(sps.Read, slabBase, 0x1860, obj)},
	}))
	require.Equal(t, okAddr(slabBase), r.Bytes())
	second := slabBase + 0x2000
	r = e.call(MemoryManagerInitializeName, sps.MemoryManagerInitialize.AppendArgs(nil, inst, sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{
			seg(sps.Read, second, 0x100, bytes.Repeat([]byte{1}, 0x100)),
			seg(sps.Read|sps.Write, second+0x1000, 0xfd0, words(42)),
			seg(sps.Read|sps.Exec, second+0x2000, 0xcc, append(append([]byte{}, mc.noop...), make([]byte, 0xcc-len(mc.noop))...)),
		},
		Actions: []sps.ActionPair{pair(c.rec(l, 1), c.rec(l, 2)), pair(sps.WrapperCall{Fn: second + 0x2000}, none)},
	}))
	require.Equal(t, okAddr(second), r.Bytes())
	assertProt(t, slabBase+0x1000, "r--", "the page holding the segment's tail is protected too")
	assertProt(t, second+0x2000, "r-x")
	assertProt(t, second+0x1000, "rw-")
	assert.Equal(t, uint64(42), u64At(second+0x1000))
	for _, k := range []sps.Addr{slabBase, second} {
		r = e.call(MemoryManagerDeinitializeName, sps.MemoryManagerDeinitialize.AppendArgs(nil, inst, []sps.Addr{k}))
		require.Equal(t, []byte{0}, r.Bytes())
	}
	assert.Equal(t, []uint64{1, 2}, l.entries())
	assert.Equal(t, 2, e.mm.Stats().Reservations, "the 1 GiB slab stays until shutdown")
}

// TestFinalizeLifetime: finalize-lifetime segments (bit 0x08) are dropped
// after finalization — PROT_NONE, memory given back, not part of the
// region — and their pages can be initialized again.
func TestFinalizeLifetime(t *testing.T) {
	e, c := newCodeEnv(t)
	base := e.reserve(0x4000)
	fl := base + 0x2000
	key, err := e.mm.Initialize(&sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{
			seg(sps.Read|sps.Write, base, 0x1000, nil),
			seg(sps.Read|sps.Write, base+0x1000, 0x1000, nil),
			seg(sps.Read|sps.Write|sps.FinalizeLifetime, fl, 0x2000, words(7)),
		},
		// The finalize action still sees the finalize-lifetime content.
		Actions: []sps.ActionPair{pair(c.addTo(fl, 35), none), pair(c.addTo(base, 0), none)},
	})
	require.NoError(t, err)
	assert.Equal(t, base, key)
	assertProt(t, fl, "---")
	assertProt(t, fl+0x1000, "---")
	assertProt(t, base+0x1000, "rw-")
	assert.Equal(t, uint64(2), e.mm.Stats().DroppedPages)
	// Not part of the region: the pages can be initialized again (they are
	// made writable first) and read as fresh memory.
	_, err = e.mm.Initialize(&sps.FinalizeRequest{Segments: []sps.SegFinalizeRequest{seg(sps.Read, fl, 0x1000, []byte("again"))}})
	require.NoError(t, err)
	assert.Equal(t, "again\x00\x00\x00", string(mem(fl, 8)))
	assertProt(t, fl, "r--")
	assertProt(t, fl+0x1000, "rw-", "the whole dropped span is back to fresh read-write memory")
	assert.Equal(t, make([]byte, 8), mem(fl+0x1000, 8))
	// While being initialized, a finalize-lifetime segment still counts
	// for overlaps (the stock's region covers every segment).
	_, err = e.mm.Initialize(&sps.FinalizeRequest{Segments: []sps.SegFinalizeRequest{
		seg(sps.Read, base+0x3000, 0x1000, nil),
		seg(sps.Read|sps.FinalizeLifetime, base+0x1000, 0x1000, nil),
	}})
	assert.EqualError(t, err, fmt.Sprintf("In initialize, region %#x -- %#x overlaps previous region %#x -- %#x",
		uint64(base)+0x1000, uint64(base)+0x4000, uint64(base), uint64(base)+0x2000))
	require.NoError(t, e.mm.Release([]sps.Addr{base}))
}

// TestHostileArgs: undecodable arguments give the out-of-band error,
// absurd counts are caught before anything is sized from them, a wrong
// instance gives a clean in-band error.
func TestHostileArgs(t *testing.T) {
	e := newEnv(t, Config{})
	inst := e.mm.InstanceAddr()
	ia := sps.AppendAddr(nil, inst)
	cases := []struct {
		name, fn string
		args     []byte
	}{
		{"reserve empty", MemoryManagerReserveName, nil},
		{"reserve short size", MemoryManagerReserveName, append(bytes.Clone(ia), 1, 2, 3)},
		{"initialize empty", MemoryManagerInitializeName, nil},
		{"initialize huge segment count", MemoryManagerInitializeName, sps.AppendU64(bytes.Clone(ia), 1<<60)},
		{"initialize huge content length", MemoryManagerInitializeName,
			append(sps.AppendU64(sps.AppendU64(sps.AppendAddr(append(sps.AppendU64(bytes.Clone(ia), 1), 3), 0x1000), 0x1000), 1<<62), 1, 2)},
		{"initialize huge action count", MemoryManagerInitializeName, sps.AppendU64(sps.AppendU64(bytes.Clone(ia), 0), ^uint64(0))},
		{"initialize huge action args", MemoryManagerInitializeName,
			sps.AppendU64(sps.AppendAddr(sps.AppendU64(sps.AppendU64(bytes.Clone(ia), 0), 1), 0x1000), 1<<40)},
		{"deinitialize huge count", MemoryManagerDeinitializeName, sps.AppendU64(bytes.Clone(ia), 1<<61)},
		{"deinitialize truncated list", MemoryManagerDeinitializeName, append(sps.AppendU64(bytes.Clone(ia), 2), make([]byte, 12)...)},
		{"release huge count", MemoryManagerReleaseName, sps.AppendU64(bytes.Clone(ia), ^uint64(0)>>3)},
		{"release no list", MemoryManagerReleaseName, ia},
		{"shm reserve short", SharedMapperReserveName, []byte{1}},
		{"shm initialize huge count", SharedMapperInitializeName, sps.AppendU64(sps.AppendAddr(bytes.Clone(ia), 0), 1<<59)},
		{"shm release huge count", SharedMapperReleaseName, sps.AppendU64(bytes.Clone(ia), 1<<59)},
		{"shm deinitialize short", SharedMapperDeinitializeName, ia[:5]},
	}
	for _, tc := range cases {
		r := e.call(tc.fn, tc.args)
		msg, oob := r.OutOfBandError()
		assert.True(t, oob, tc.name)
		assert.Equal(t, msgDeserializeArgs, msg, tc.name)
	}
	// Trailing bytes are ignored, as LLVM ignores them.
	r := e.call(MemoryManagerReleaseName, append(sps.MemoryManagerRelease.AppendArgs(nil, inst, nil), 0x78, 0x78))
	assert.Equal(t, []byte{0}, r.Bytes())

	bad := e.s.InstanceAddr() // an instance, but not a memory manager
	for _, tc := range []struct {
		fn   string
		args []byte
		tag  byte
	}{
		{MemoryManagerReserveName, sps.MemoryManagerReserve.AppendArgs(nil, bad, 0x1000), 0},
		{MemoryManagerInitializeName, sps.MemoryManagerInitialize.AppendArgs(nil, 0x1234, sps.FinalizeRequest{}), 0},
		{MemoryManagerDeinitializeName, sps.MemoryManagerDeinitialize.AppendArgs(nil, 0x1234, nil), 1},
		{MemoryManagerReleaseName, sps.MemoryManagerRelease.AppendArgs(nil, bad, nil), 1},
		{SharedMapperReserveName, sps.SharedMemoryReserve.AppendArgs(nil, inst, 0x1000), 0},
		{SharedMapperReleaseName, sps.SharedMemoryRelease.AppendArgs(nil, 0x1234, nil), 1},
	} {
		r := e.call(tc.fn, tc.args)
		require.False(t, r.IsOutOfBandError(), tc.fn)
		require.Greater(t, r.Size(), 9, tc.fn)
		assert.Equal(t, tc.tag, r.Bytes()[0], tc.fn)
		assert.Contains(t, string(r.Bytes()[9:]), "alloc: ", tc.fn)
		assert.Contains(t, string(r.Bytes()[9:]), "instance", tc.fn)
	}
	// A truncated request is reported as such even with a wrong instance.
	r = e.call(MemoryManagerInitializeName, sps.AppendU64(sps.AppendAddr(nil, 0x1234), 5))
	assert.True(t, r.IsOutOfBandError())
}

// TestReleaseDuringInitialize: a release racing an initialize does not
// unmap memory while the initialize still runs actions; the initialize
// then fails with the stock's error and undoes its finalize actions.
func TestReleaseDuringInitialize(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 8)
	base := e.reserve(0x2000)
	entered, resume := make(chan struct{}), make(chan struct{})
	block := e.s.RegisterWrapper(func(_ *rt.Session, _ []byte, ret rt.ReturnFunc) {
		close(entered)
		<-resume
		ret(rt.CopyResult([]byte{0}))
	})
	done := make(chan error, 1)
	go func() {
		_, err := e.mm.Initialize(&sps.FinalizeRequest{
			Segments: []sps.SegFinalizeRequest{seg(sps.Read|sps.Write, base, 0x1000, nil)},
			Actions:  []sps.ActionPair{pair(c.rec(l, 1), c.rec(l, 2)), pair(sps.WrapperCall{Fn: block}, none)},
		})
		done <- err
	}()
	<-entered
	live := e.mm.Stats().Slab.LiveRegions
	require.NoError(t, e.mm.Release([]sps.Addr{base}))
	assert.Equal(t, live, e.mm.Stats().Slab.LiveRegions, "not unmapped while the initialize runs")
	assertProt(t, base, "rw-")
	close(resume)
	err := <-done
	assert.EqualError(t, err, fmt.Sprintf("In initialize, range %#x -- %#x is not part of any reserved address range", uint64(base), uint64(base)+0x1000))
	assert.Equal(t, []uint64{1, 2}, l.entries(), "the finalize action was undone")
	assert.Equal(t, live-1, e.mm.Stats().Slab.LiveRegions, "unmapped by the initialize that finished last")
}

// TestNearWindow: many small reservations stay within rel32 reach of each
// other (one Near arena), next to a 1 GiB one.
func TestNearWindow(t *testing.T) {
	e := newEnv(t, Config{})
	big := e.reserve(1 << 30)
	lo, hi := uint64(big), uint64(big)+1<<30
	var bases []sps.Addr
	for i := range 300 {
		b, err := e.mm.Reserve(uint64(0x1000 * (1 + i%16)))
		require.NoError(t, err)
		bases = append(bases, b)
		lo, hi = min(lo, uint64(b)), max(hi, uint64(b)+uint64(0x1000*(1+i%16)))
	}
	assert.Less(t, hi-lo, uint64(slab.MaxNearSize)+1, "every pair within rel32 reach")
	assert.Equal(t, 1, e.mm.Stats().Arenas)
	require.NoError(t, e.mm.Release(append(bases, big)))
}

// TestArenaLimits: a reservation larger than an arena gets one of its own
// (closed at release); when every arena is full, reserve fails like a
// failed mmap.
func TestArenaLimits(t *testing.T) {
	e := newEnv(t, Config{ArenaSize: 1 << 20, MaxArenas: 2, NoCache: true})
	bases := e.reserveN(4, 512<<10)
	_, err := e.mm.Reserve(512 << 10)
	require.EqualError(t, err, "Cannot allocate memory")
	require.ErrorIs(t, err, slab.ErrNoSpace)
	assert.Equal(t, 2, e.mm.Stats().Arenas)
	big := e.reserve(3 << 20)
	assert.Equal(t, 3, e.mm.Stats().Arenas)
	mem(big+3<<20-1, 1)[0] = 1
	require.NoError(t, e.mm.Release([]sps.Addr{big}))
	assert.Equal(t, 2, e.mm.Stats().Arenas, "the dedicated arena is closed at release")
	require.NoError(t, e.mm.Release(bases[:1]))
	b, err := e.mm.Reserve(512 << 10)
	require.NoError(t, err, "freed space is reused")
	require.NoError(t, e.mm.Release(append(bases[1:], b)))
}

// TestSyscallBudget pins the system calls of the hot reserve / initialize
// / release cycle (16 KiB RX, 8 KiB R, 8 KiB RW) through the wrappers: in
// steady state no mmap, munmap or madvise, and exactly three protection
// changes — RX and R at initialize, one back to RW when the released
// region goes to the cache (RW segments cost nothing).
func TestSyscallBudget(t *testing.T) {
	e := newEnv(t, Config{})
	inst := e.mm.InstanceAddr()
	reserve, _ := e.s.LookupWrapper(mustSym(t, e, MemoryManagerReserveName))
	initialize, _ := e.s.LookupWrapper(mustSym(t, e, MemoryManagerInitializeName))
	release, _ := e.s.LookupWrapper(mustSym(t, e, MemoryManagerReleaseName))
	code := bytes.Repeat(mc.noop, 16<<10/len(mc.noop))
	cycle := func() {
		var res rt.WrapperResult
		ret := func(r rt.WrapperResult) { res = r }
		reserve(e.s, sps.MemoryManagerReserve.AppendArgs(nil, inst, 32<<10), ret)
		base := sps.Addr(binary.LittleEndian.Uint64(res.Bytes()[1:]))
		initialize(e.s, sps.MemoryManagerInitialize.AppendArgs(nil, inst, sps.FinalizeRequest{Segments: []sps.SegFinalizeRequest{
			seg(sps.Read, base, 8<<10, []byte("rodata")),
			seg(sps.Read|sps.Write, base+8<<10, 8<<10, []byte("data")),
			seg(sps.Read|sps.Exec, base+16<<10, 16<<10, code),
		}}), ret)
		if !bytes.Equal(res.Bytes(), okAddr(base)) {
			t.Fatalf("initialize: %q", res.Bytes())
		}
		release(e.s, sps.MemoryManagerRelease.AppendArgs(nil, inst, []sps.Addr{base}), ret)
		if !bytes.Equal(res.Bytes(), []byte{0}) {
			t.Fatalf("release: %q", res.Bytes())
		}
	}
	cycle()
	cycle()
	before := e.mm.Stats().Slab
	const n = 50
	for range n {
		cycle()
	}
	after := e.mm.Stats().Slab
	assert.Equal(t, uint64(3*n), after.Protects-before.Protects, "mprotects")
	assert.Zero(t, after.Madvises-before.Madvises, "madvise")
	assert.Zero(t, after.Maps-before.Maps, "mmap")
	assert.Zero(t, after.Unmaps-before.Unmaps, "munmap")
	assert.Equal(t, uint64(n), after.CacheHits-before.CacheHits, "every reservation is a cache hit")
}

func mustSym(t testing.TB, e *env, name string) sps.Addr {
	a, ok := e.syms.Lookup(name)
	require.True(t, ok, name)
	return a
}

// TestHammer runs reserve / initialize (with native actions) / deinitialize
// / release cycles from many goroutines, some over shared reservations.
func TestHammer(t *testing.T) {
	e, c := newCodeEnv(t)
	ctr := e.rwBlock(8)
	shared := e.reserve(1 << 20)
	var next atomic.Uint64
	const workers, iters = 8, 150
	var wg sync.WaitGroup
	var failures atomic.Int64
	report := func(err error) {
		if err != nil {
			failures.Add(1)
			t.Error(err)
		}
	}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range iters {
				if w%2 == 0 {
					base, err := e.mm.Reserve(uint64(0x1000 * (1 + i%3)))
					report(err)
					if err != nil {
						return
					}
					_, err = e.mm.Initialize(&sps.FinalizeRequest{
						Segments: []sps.SegFinalizeRequest{seg(sps.Read, base, 0x1000, []byte("x"))},
						Actions:  []sps.ActionPair{pair(c.addTo(ctr, 1), c.addTo(ctr, ^uint64(0)))},
					})
					report(err)
					report(e.mm.Release([]sps.Addr{base}))
				} else {
					// Distinct 64-byte regions of one shared reservation.
					k := shared + sps.Addr(next.Add(1)*64)
					_, err := e.mm.Initialize(&sps.FinalizeRequest{
						Segments: []sps.SegFinalizeRequest{seg(sps.Read|sps.Write, k, 64, []byte("y"))},
						Actions:  []sps.ActionPair{pair(c.addTo(ctr, 1), c.addTo(ctr, ^uint64(0)))},
					})
					report(err)
					report(e.mm.Deinitialize([]sps.Addr{k}))
				}
			}
		}()
	}
	wg.Wait()
	require.Zero(t, failures.Load())
	assert.Equal(t, uint64(0), u64At(ctr), "every finalize was undone by its dealloc")
	require.NoError(t, e.mm.Release([]sps.Addr{shared}))
	for _, a := range e.mm.arenasSnapshot() {
		require.NoError(t, a.Verify(true))
	}
}

func (m *MemoryManager) arenasSnapshot() []*slab.Slab { return *m.arenas.Load() }

// TestInitializeKeepsNoArgs: dealloc actions are copied, so the caller
// may reuse its buffers after initialize returns.
func TestInitializeKeepsNoArgs(t *testing.T) {
	e, c := newCodeEnv(t)
	ctr := e.rwBlock(8)
	base := e.reserve(0x1000)
	args := words(uint64(ctr), 5)
	_, err := e.mm.Initialize(&sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{seg(sps.Read, base, 0x1000, nil)},
		Actions:  []sps.ActionPair{pair(none, sps.WrapperCall{Fn: c.add, Args: args})},
	})
	require.NoError(t, err)
	clear(args) // would make the action write to address 0
	require.NoError(t, e.mm.Release([]sps.Addr{base}))
	assert.Equal(t, uint64(5), u64At(ctr))
}

// TestShutdownReportsErrors: failures of dealloc actions run at shutdown
// go to the Session's error reporter.
func TestShutdownReportsErrors(t *testing.T) {
	e := newEnv(t, Config{})
	e.allowErrs = true
	c := e.loadCode()
	base := e.reserve(0x1000)
	_, err := e.mm.Initialize(&sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{seg(sps.Read, base, 0x1000, nil)},
		Actions:  []sps.ActionPair{pair(none, c.fail("late failure"))},
	})
	require.NoError(t, err)
	e.close()
	errs := e.errs.get()
	require.Len(t, errs, 1)
	assert.Equal(t, "alloc: releasing memory at shutdown: late failure", errs[0])
}

func uintptrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// TestCreateAndDestroy (orc-rt SimpleNativeMemoryMapTest): a manager that
// never reserved anything maps nothing and shuts down cleanly.
func TestCreateAndDestroy(t *testing.T) {
	live := slab.LiveSlabs()
	info, err := rt.DetectProcessInfo()
	require.NoError(t, err)
	s := rt.NewSession(info, rt.InlineRunner{}, nil)
	m, err := NewMemoryManager(s, Config{})
	require.NoError(t, err)
	s.AddService(m)
	assert.Equal(t, live, slab.LiveSlabs(), "no arena before the first reservation")
	s.Close()
	_, err = m.Reserve(0x1000)
	assert.ErrorIs(t, err, ErrClosed)
	_, err = NewMemoryManager(nil, Config{})
	assert.Error(t, err)
}

// TestSharedPages: regions whose segments share a page (unaligned
// layouts). As in the stock, protections cover whole pages and the last
// one applied to a page wins; content that would have to be written into
// a page a neighbour already made non-writable is refused cleanly (the
// stock would fault).
func TestSharedPages(t *testing.T) {
	e := newEnv(t, Config{})
	base := e.reserve(0x2000)
	_, err := e.mm.Initialize(&sps.FinalizeRequest{Segments: []sps.SegFinalizeRequest{seg(sps.Read|sps.Write, base, 0x100, []byte("A"))}})
	require.NoError(t, err)
	_, err = e.mm.Initialize(&sps.FinalizeRequest{Segments: []sps.SegFinalizeRequest{seg(sps.Read, base+0x100, 0x100, []byte("B"))}})
	require.NoError(t, err)
	assertProt(t, base, "r--", "the page takes the last protection applied to it")
	_, err = e.mm.Initialize(&sps.FinalizeRequest{Segments: []sps.SegFinalizeRequest{seg(sps.Read|sps.Write, base+0x200, 0x100, []byte("C"))}})
	require.ErrorIs(t, err, slab.ErrNotWritable)
	assert.Contains(t, err.Error(), fmt.Sprintf("alloc: initialize: segment %#x: ", uint64(base)+0x200))
	assert.Equal(t, "A", string(mem(base, 1)))
	assertProt(t, base, "r--")
	require.NoError(t, e.mm.Release([]sps.Addr{base}))
}

// TestReserveBeyondMemory: a reservation larger than physical memory plus
// swap — 40 TiB, or an instance address misread as a size — is refused
// at once with the stock "Cannot allocate memory", without the per-page
// bookkeeping such an arena would cost (gigabytes of heap, minutes of
// CPU: found by fuzz/executorfuzz).
func TestReserveBeyondMemory(t *testing.T) {
	e := newEnv(t, Config{})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	for _, size := range []uint64{maxReservation() + 1, 40 << 40, uint64(e.mm.InstanceAddr())} {
		if size <= maxReservation() {
			continue
		}
		_, err := e.mm.Reserve(size)
		require.Error(t, err)
		assert.Equal(t, "Cannot allocate memory", err.Error())
		r := e.call(MemoryManagerReserveName, sps.MemoryManagerReserve.AppendArgs(nil, e.mm.InstanceAddr(), size))
		v, derr := sps.MemoryManagerReserve.DecodeResult(r.Bytes())
		require.NoError(t, derr)
		assert.EqualError(t, v.Err, "Cannot allocate memory")
	}
	runtime.ReadMemStats(&after)
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "bytes allocated for refused reservations")
	t.Logf("limit %#x bytes (physical memory plus swap)", maxReservation())
	// Up to the limit's order of magnitude still works: 1 GiB (simple-remote's slab).
	a := e.reserve(1 << 30)
	require.NoError(t, e.mm.Release([]sps.Addr{a}))
}
