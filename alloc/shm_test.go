//go:build cgo && (amd64 || arm64)

package alloc

import (
	"encoding/binary"
	"fmt"
	"os"
	"regexp"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/sysmem"
	"github.com/orcgo/orcrt/native/jitsyms"
	"github.com/orcgo/orcrt/slab"
	"github.com/orcgo/orcrt/sps"
)

// controllerView does what LLVM's SharedMemoryMapper::reserve does on the
// controller side: shm_open(name, O_RDWR), shm_unlink(name) at once, mmap
// a read-write MAP_SHARED view, close the descriptor.
func controllerView(t testing.TB, name string, size uint64, unlink bool) []byte {
	t.Helper()
	f, err := os.OpenFile(shmDir+name, os.O_RDWR, 0o700)
	require.NoError(t, err)
	if unlink {
		require.NoError(t, os.Remove(shmDir+name))
	}
	p, err := sysmem.Mmap(0, uintptr(size), sysmem.ProtRead|sysmem.ProtWrite, sysmem.MapShared, int(f.Fd()), 0)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	t.Cleanup(func() { require.NoError(t, sysmem.Munmap(p, uintptr(size))) })
	return sysmem.View(p, uintptr(size))
}

func (e *env) shmReserve(size uint64) (sps.Addr, string) {
	e.t.Helper()
	r := e.call(SharedMapperReserveName, sps.SharedMemoryReserve.AppendArgs(nil, e.sm.InstanceAddr(), size))
	v, err := sps.SharedMemoryReserve.DecodeResult(r.Bytes())
	require.NoError(e.t, err)
	require.NoError(e.t, v.Err)
	return v.Value.First, v.Value.Second
}

func (e *env) shmInit(resv sps.Addr, fr sps.SharedFinalizeRequest) (sps.Addr, error) {
	e.t.Helper()
	r := e.call(SharedMapperInitializeName, sps.SharedMemoryInitialize.AppendArgs(nil, e.sm.InstanceAddr(), resv, fr))
	v, err := sps.SharedMemoryInitialize.DecodeResult(r.Bytes())
	require.NoError(e.t, err)
	return v.Value, v.Err
}

func (e *env) shmCall(name string, addrs []sps.Addr) error {
	e.t.Helper()
	r := e.call(name, sps.SharedMemoryRelease.AppendArgs(nil, e.sm.InstanceAddr(), addrs))
	v, err := sps.SharedMemoryRelease.DecodeResult(r.Bytes())
	require.NoError(e.t, err)
	return v
}

func shmSeg(g sps.AllocGroup, a sps.Addr, size uint64) sps.SharedSegFinalizeRequest {
	return sps.SharedSegFinalizeRequest{Group: g, Addr: a, Size: size}
}

// TestSharedMemoryMapper runs the -use-memmgr=shared protocol end to end
// in one process: the "controller" writes code and data through its own
// view of the object, the executor only protects and runs actions — here
// actions whose machine code lives in the shared segment itself.
func TestSharedMemoryMapper(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 16)
	const size = 1 << 20
	base, name := e.shmReserve(size)
	assert.Regexp(t, regexp.MustCompile(fmt.Sprintf(`^/jitlink_%d_\d+$`, os.Getpid())), name)
	st, err := os.Stat(shmDir + name)
	require.NoError(t, err)
	assert.Equal(t, int64(size), st.Size())
	assert.Equal(t, os.FileMode(0o700)&^umask(), st.Mode().Perm())
	assertProt(t, base, "---", "the executor view starts inaccessible")

	view := controllerView(t, name, size, true)
	_, err = os.Stat(shmDir + name)
	assert.True(t, os.IsNotExist(err), "the controller unlinked the object")

	// Allocation at +64 KiB: R-X code page, RW data page (as laid out by
	// MapperJITLinkMemoryManager: page-aligned segment starts).
	alloc := base + 64<<10
	off := 64 << 10
	copy(view[off:], mc.record)
	binary.LittleEndian.PutUint64(view[off+0x1000:], 41)
	key, err := e.shmInit(base, sps.SharedFinalizeRequest{
		Segments: []sps.SharedSegFinalizeRequest{
			shmSeg(sps.Read|sps.Write, alloc+0x1000, 0x800),
			shmSeg(sps.Read|sps.Exec, alloc, 0x1000),
		},
		Actions: []sps.ActionPair{
			pair(sps.WrapperCall{Fn: alloc, Args: words(uint64(l.p), 1)}, sps.WrapperCall{Fn: alloc, Args: words(uint64(l.p), 11)}),
			pair(c.addTo(alloc+0x1000, 1), c.addTo(alloc+0x1000, 100)),
		},
	})
	require.NoError(t, err)
	assert.Equal(t, alloc, key, "the key is the lowest segment address")
	assertProt(t, alloc, "r-x")
	assertProt(t, alloc+0x1000, "rw-")
	assertProt(t, alloc+0x2000, "---")
	assert.Equal(t, []uint64{1}, l.entries())
	assert.Equal(t, uint64(42), binary.LittleEndian.Uint64(view[off+0x1000:]), "the executor's write is visible to the controller")
	noWX(t, base, size)

	// A second allocation, then release: each allocation's deallocs in
	// reverse, the last-initialized allocation first.
	alloc2 := base + 128<<10
	key2, err := e.shmInit(base, sps.SharedFinalizeRequest{
		Segments: []sps.SharedSegFinalizeRequest{shmSeg(sps.Read, alloc2, 0x1000)},
		Actions:  []sps.ActionPair{pair(none, c.rec(l, 21)), pair(none, c.rec(l, 22))},
	})
	require.NoError(t, err)
	assert.Equal(t, alloc2, key2)
	require.NoError(t, e.shmCall(SharedMapperReleaseName, []sps.Addr{base}))
	assert.Equal(t, []uint64{1, 22, 21, 11}, l.entries())
	assert.Equal(t, uint64(142), binary.LittleEndian.Uint64(view[off+0x1000:]))
	assert.False(t, mapped(t, base), "the executor view is unmapped")
	assert.EqualError(t, e.shmCall(SharedMapperReleaseName, []sps.Addr{base}), "Invalid argument", "double release (the stock's munmap of 0 bytes)")
}

func umask() os.FileMode {
	old := syscall.Umask(0)
	syscall.Umask(old)
	return os.FileMode(old)
}

// noWX checks that no page of [base, base+size) is writable and
// executable in the executor.
func noWX(t testing.TB, base sps.Addr, size uint64) {
	t.Helper()
	maps, err := slab.ReadMaps()
	require.NoError(t, err)
	for _, m := range maps {
		if m.End > uintptr(base) && m.Start < uintptr(base)+uintptr(size) {
			assert.False(t, m.Prot&slab.ProtWrite != 0 && m.Prot&slab.ProtExec != 0, "W|X mapping %#x-%#x", m.Start, m.End)
			assert.True(t, m.Shared, "MAP_SHARED")
		}
	}
}

func TestSharedMemoryMapperDeinitialize(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 16)
	base, name := e.shmReserve(0x10000)
	controllerView(t, name, 0x10000, true)
	var keys []sps.Addr
	for i := range 3 {
		k, err := e.shmInit(base, sps.SharedFinalizeRequest{
			Segments: []sps.SharedSegFinalizeRequest{shmSeg(sps.Read, base+sps.Addr(i)*0x1000, 0x1000)},
			Actions:  []sps.ActionPair{pair(none, c.rec(l, uint64(10*i+1))), pair(none, c.rec(l, uint64(10*i+2)))},
		})
		require.NoError(t, err)
		keys = append(keys, k)
	}
	// Reverse key order; unknown keys are ignored, as by the stock.
	require.NoError(t, e.shmCall(SharedMapperDeinitializeName, []sps.Addr{keys[0], 0x1234000, keys[2]}))
	assert.Equal(t, []uint64{22, 21, 2, 1}, l.entries())
	require.NoError(t, e.shmCall(SharedMapperDeinitializeName, []sps.Addr{keys[0]}), "already deinitialized: nothing to run")
	// The key can be initialized again; release runs what is left.
	_, err := e.shmInit(base, sps.SharedFinalizeRequest{
		Segments: []sps.SharedSegFinalizeRequest{shmSeg(sps.Read|sps.Write, keys[0], 0x1000)},
		Actions:  []sps.ActionPair{pair(none, c.rec(l, 3))},
	})
	require.NoError(t, err)
	l.reset()
	require.NoError(t, e.shmCall(SharedMapperReleaseName, []sps.Addr{base}))
	assert.Equal(t, []uint64{3, 12, 11}, l.entries())
}

// TestSharedMemoryMapperDeinitializeForgetsJITNames: a deinitialize drops
// the names native/jitsyms holds for the allocation's code, before the
// controller can put other code there; the other allocations keep theirs.
func TestSharedMemoryMapperDeinitializeForgetsJITNames(t *testing.T) {
	e := newEnv(t, Config{})
	base, name := e.shmReserve(0x10000)
	controllerView(t, name, 0x10000, true)
	var keys []sps.Addr
	for i := range 2 {
		k, err := e.shmInit(base, sps.SharedFinalizeRequest{
			Segments: []sps.SharedSegFinalizeRequest{shmSeg(sps.Read|sps.Exec, base+sps.Addr(i)*0x1000, 0x1000)},
		})
		require.NoError(t, err)
		keys = append(keys, k)
		jitsyms.AddAll([]jitsyms.Sym{{Start: uint64(k) + 0x10, End: uint64(k) + 0x20, Name: fmt.Sprint("f", i), Module: "m.c"}})
	}
	require.NoError(t, e.shmCall(SharedMapperDeinitializeName, []sps.Addr{keys[0]}))
	_, ok := jitsyms.Lookup(uint64(keys[0]) + 0x10)
	assert.False(t, ok, "the deinitialized code's name is gone")
	s, ok := jitsyms.Lookup(uint64(keys[1]) + 0x10)
	assert.True(t, ok)
	assert.Equal(t, "f1", s.Name)
	require.NoError(t, e.shmCall(SharedMapperReleaseName, []sps.Addr{base}))
	_, ok = jitsyms.Lookup(uint64(keys[1]) + 0x10)
	assert.False(t, ok)
}

func TestSharedMemoryMapperErrors(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 8)
	inst := e.sm.InstanceAddr()

	r := e.call(SharedMapperReserveName, sps.SharedMemoryReserve.AppendArgs(nil, inst, 0))
	v, err := sps.SharedMemoryReserve.DecodeResult(r.Bytes())
	require.NoError(t, err)
	assert.EqualError(t, v.Err, "Invalid argument", "mmap of 0 bytes, as in the stock")

	base, name := e.shmReserve(0x4000)
	controllerView(t, name, 0x4000, false) // a controller that never unlinks

	cases := []struct {
		name string
		resv sps.Addr
		fr   sps.SharedFinalizeRequest
		want string
	}{
		{"unaligned segment (raw mprotect, as in the stock)", base,
			sps.SharedFinalizeRequest{Segments: []sps.SharedSegFinalizeRequest{shmSeg(sps.Read, base+8, 0x100)}},
			"Invalid argument"},
		{"not a reservation", base + 0x1000,
			sps.SharedFinalizeRequest{Segments: []sps.SharedSegFinalizeRequest{shmSeg(sps.Read, base+0x1000, 0x1000)}},
			fmt.Sprintf("alloc: shared memory initialize: %#x is not a reservation of this mapper", uint64(base)+0x1000)},
		{"outside the reservation", base,
			sps.SharedFinalizeRequest{Segments: []sps.SharedSegFinalizeRequest{shmSeg(sps.Read, base+0x3000, 0x2000)}},
			fmt.Sprintf("alloc: shared memory initialize: segment %#x -- %#x is not inside reservation %#x -- %#x", uint64(base)+0x3000, uint64(base)+0x5000, uint64(base), uint64(base)+0x4000)},
		{"W|X", base,
			sps.SharedFinalizeRequest{Segments: []sps.SharedSegFinalizeRequest{shmSeg(sps.Read|sps.Write|sps.Exec, base, 0x1000)}},
			fmt.Sprintf("alloc: segment %#x: writable and executable protection (RWX) refused (W^X)", uint64(base))},
		{"finalize action fails", base,
			sps.SharedFinalizeRequest{
				Segments: []sps.SharedSegFinalizeRequest{shmSeg(sps.Read, base, 0x1000)},
				Actions:  []sps.ActionPair{pair(c.rec(l, 1), c.rec(l, 2)), pair(c.fail("nope"), c.rec(l, 3))},
			},
			"nope"},
	}
	for _, tc := range cases {
		_, err := e.shmInit(tc.resv, tc.fr)
		assert.EqualError(t, err, tc.want, tc.name)
	}
	assert.Equal(t, []uint64{1, 2}, l.entries(), "the failing request's collected dealloc ran")
	assertProt(t, base, "r--", "protections are not undone (as in the stock)")

	_, err = e.shmInit(base, sps.SharedFinalizeRequest{Segments: []sps.SharedSegFinalizeRequest{shmSeg(sps.Read|sps.Write, base, 0x1000)}})
	require.NoError(t, err)
	_, err = e.shmInit(base, sps.SharedFinalizeRequest{Segments: []sps.SharedSegFinalizeRequest{shmSeg(sps.Read, base, 0x800)}})
	assert.EqualError(t, err, fmt.Sprintf("alloc: shared memory initialize: allocation %#x is already initialized", uint64(base)))

	// No segments: the stock's key is ~0.
	k, err := e.shmInit(base, sps.SharedFinalizeRequest{Actions: []sps.ActionPair{pair(c.rec(l, 9), none)}})
	require.NoError(t, err)
	assert.Equal(t, ^sps.Addr(0), k)

	assert.EqualError(t, e.shmCall(SharedMapperReleaseName, []sps.Addr{0x1234000, base}), "Invalid argument")
	_, err = os.Stat(shmDir + name)
	assert.True(t, os.IsNotExist(err), "release removed the object the controller left behind")
}

// TestSharedMemoryMapperShutdown: shutdown releases every reservation,
// runs outstanding deallocs and removes the objects; later calls fail.
func TestSharedMemoryMapperShutdown(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 8)
	var names []string
	for i := range 3 {
		base, name := e.shmReserve(0x2000)
		names = append(names, name)
		if i == 1 {
			controllerView(t, name, 0x2000, true)
		}
		_, err := e.shmInit(base, sps.SharedFinalizeRequest{
			Segments: []sps.SharedSegFinalizeRequest{shmSeg(sps.Read, base, 0x1000)},
			Actions:  []sps.ActionPair{pair(none, c.rec(l, uint64(i)))},
		})
		require.NoError(t, err)
	}
	e.close()
	assert.ElementsMatch(t, []uint64{0, 1, 2}, l.entries())
	for _, n := range names {
		_, err := os.Stat(shmDir + n)
		assert.True(t, os.IsNotExist(err), n)
	}
	_, _, err := e.sm.Reserve(0x1000)
	assert.ErrorIs(t, err, ErrClosed)
}

// TestSharedMemoryMapperHolds: Holds covers a reservation from its
// reserve to the start of its release.
func TestSharedMemoryMapperHolds(t *testing.T) {
	e := newEnv(t, Config{})
	const size = 64 << 10
	base, _ := e.shmReserve(size)
	assert.True(t, e.sm.Holds(base))
	assert.True(t, e.sm.Holds(base+size-1))
	assert.False(t, e.sm.Holds(base+size))
	assert.False(t, e.sm.Holds(base-1))
	require.NoError(t, e.shmCall(SharedMapperReleaseName, []sps.Addr{base}))
	assert.False(t, e.sm.Holds(base), "released")
}
