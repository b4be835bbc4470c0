//go:build cgo && (amd64 || arm64)

package alloc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/sps"
)

// TestGoActionArgsOwnership: initialize is registered with rt.BorrowArgs,
// so the action arguments it decodes are views into a buffer the CA will
// recycle. A Go wrapper run as an action gets a copy when it owns its
// arguments (it may keep them), and the view itself when it only borrows
// them.
func TestGoActionArgsOwnership(t *testing.T) {
	e := newEnv(t, Config{})
	var owned, borrowed []byte
	owning := e.s.RegisterWrapper(func(_ *rt.Session, a []byte, ret rt.ReturnFunc) {
		owned = a
		ret(rt.ResultBytes([]byte{0}))
	})
	borrowing := e.s.RegisterWrapper(func(_ *rt.Session, a []byte, ret rt.ReturnFunc) {
		borrowed = a
		ret(rt.ResultBytes([]byte{0}))
	}, rt.BorrowArgs)
	buf := []byte("action arguments")
	r := Runner{Session: e.s}
	require.NoError(t, r.Run(sps.WrapperCall{Fn: owning, Args: buf}))
	require.NoError(t, r.Run(sps.WrapperCall{Fn: borrowing, Args: buf}))
	assert.Same(t, &buf[0], &borrowed[0], "a borrowing action sees the view")
	assert.NotSame(t, &buf[0], &owned[0], "an owning action gets a copy")
	copy(buf, "XXXXXXXXXXXXXXXX") // the CA reuses its buffer
	assert.Equal(t, "action arguments", string(owned))
}

// TestBootstrapWrappersBorrow: the memory manager's and the shared-memory
// mapper's wrappers are registered as borrowing their arguments.
func TestBootstrapWrappersBorrow(t *testing.T) {
	e := newEnv(t, Config{})
	for _, name := range []string{
		MemoryManagerReserveName, MemoryManagerInitializeName, MemoryManagerDeinitializeName, MemoryManagerReleaseName,
		SharedMapperReserveName, SharedMapperInitializeName, SharedMapperDeinitializeName, SharedMapperReleaseName,
	} {
		a, ok := e.syms.Lookup(name)
		require.True(t, ok, name)
		assert.True(t, e.s.WrapperBorrowsArgs(a), name)
	}
}
