//go:build cgo

package entry_test

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/arch"
	"github.com/orcgo/orcrt/internal/cmem"
	"github.com/orcgo/orcrt/internal/sysmem"
	"github.com/orcgo/orcrt/rt/svctest"
	"github.com/orcgo/orcrt/service/entry"
	"github.com/orcgo/orcrt/slab"
	"github.com/orcgo/orcrt/sps"
)

// nonCode returns addresses that are not executable code in this process:
// Go heap, C heap, a read-write JIT'd page (slab), a page that was
// mapped and is not any more, and a non-canonical address.
func nonCode(t *testing.T) map[string]sps.Addr {
	heap := new([64]byte)
	cbuf := cmem.Malloc(64)
	t.Cleanup(func() { cmem.Free(cbuf) })
	s, err := slab.New(slab.Config{Size: 1 << 20})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	r, err := s.Reserve(4096)
	require.NoError(t, err)
	pg := sysmem.PageSize()
	gone, err := sysmem.Mmap(0, pg, sysmem.ProtRead|sysmem.ProtExec, sysmem.MapPrivate|sysmem.MapAnonymous, -1, 0)
	require.NoError(t, err)
	require.NoError(t, sysmem.Munmap(gone, pg))
	return map[string]sps.Addr{
		"Go heap":       sps.Addr(uintptr(unsafe.Pointer(heap))),
		"C heap":        sps.Addr(cbuf),
		"JIT'd RW page": sps.Addr(r.Base()),
		"unmapped":      sps.Addr(gone),
		"non-canonical": 0xdead_0000_0000_0000,
		"the null page": 8,
	}
}

// TestCallsToNonCode: a JIT'd-wrapper call or a run_as_* call whose
// address is not code gets an out-of-band error naming the address — an
// empty Result on the wire — and the process lives on.
func TestCallsToNonCode(t *testing.T) {
	h := svctest.New(t, install)
	for name, a := range nonCode(t) {
		t.Run(name, func(t *testing.T) {
			hex := fmt.Sprintf("%#x", uint64(a))
			msg, oob := h.Call(a, []byte("args")).OutOfBandError()
			require.True(t, oob)
			assert.Contains(t, msg, "entry: call of JIT'd wrapper: codemap: "+hex+" is not executable code in this process")
			for _, c := range []struct {
				name, what string
				args       []byte
			}{
				{entry.RunAsMainName, "run_as_main", sps.RunAsMain.AppendArgs(nil, a, []string{"x"})},
				{entry.RunAsVoidFunctionName, "run_as_void_function", sps.RunAsVoidFunction.AppendArgs(nil, a)},
				{entry.RunAsIntFunctionName, "run_as_int_function", sps.RunAsIntFunction.AppendArgs(nil, a, 3)},
			} {
				msg, oob := h.CallName(c.name, c.args).OutOfBandError()
				require.True(t, oob, c.name)
				assert.Contains(t, msg, "entry: "+c.what+": codemap: "+hex, c.name)
			}
		})
	}
	// Real code still runs: the test library's functions (dlopen'd), and
	// libc's.
	lib := svctest.JITLib(t)
	r := h.Call(sps.Addr(lib("orcrt_test_echo")), []byte("still works"))
	assert.Equal(t, "still works", string(r.Bytes()))
	r = h.CallName(entry.RunAsIntFunctionName, sps.RunAsIntFunction.AppendArgs(nil, sps.Addr(libc(t, "abs")), -5))
	assert.Equal(t, []byte{5, 0, 0, 0}, r.Bytes())
}

// TestProgramsOwnCodeIsCallable: code the JIT'd program mapped itself
// (mmap + mprotect, outside any slab and any loaded object) is called,
// not refused.
func TestProgramsOwnCodeIsCallable(t *testing.T) {
	if retEmpty == nil {
		t.Skip("no machine code for this architecture")
	}
	h := svctest.New(t, install)
	pg := sysmem.PageSize()
	a, err := sysmem.Mmap(0, pg, sysmem.ProtRead|sysmem.ProtWrite, sysmem.MapPrivate|sysmem.MapAnonymous, -1, 0)
	require.NoError(t, err)
	defer sysmem.Munmap(a, pg)
	copy(sysmem.View(a, pg), retEmpty)
	require.NoError(t, sysmem.Mprotect(a, pg, sysmem.ProtRead|sysmem.ProtExec))
	arch.FlushICache(a, pg)
	r := h.Call(sps.Addr(a), []byte("x"))
	require.False(t, r.IsOutOfBandError(), "%v", r.Err())
	assert.True(t, r.Empty())
}
