//go:build cgo

package executor

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/alloc"
	"github.com/orcgo/orcrt/service/dylib"
	"github.com/orcgo/orcrt/service/ehframe"
	"github.com/orcgo/orcrt/service/entry"
	"github.com/orcgo/orcrt/service/memaccess"
)

// TestBootstrapWrappersBorrowArgs: the wrappers on the wire's hot paths
// are registered as borrowing their arguments, so the SimpleRemoteEPC CA
// recycles their payload buffers (rt.BorrowArgs).
func TestBootstrapWrappersBorrowArgs(t *testing.T) {
	e, err := New(Options{})
	require.NoError(t, err)
	defer e.Close()
	names := []string{
		alloc.MemoryManagerReserveName, alloc.MemoryManagerInitializeName,
		alloc.MemoryManagerDeinitializeName, alloc.MemoryManagerReleaseName,
		alloc.SharedMapperReserveName, alloc.SharedMapperInitializeName,
		alloc.SharedMapperDeinitializeName, alloc.SharedMapperReleaseName,
		dylib.OpenWrapperName, dylib.ResolveWrapperName,
		entry.RunAsMainName, entry.RunAsVoidFunctionName, entry.RunAsIntFunctionName,
		ehframe.RegisterActionName, ehframe.DeregisterActionName,
	}
	for name := range memaccess.Wrappers() {
		names = append(names, name)
	}
	for _, name := range names {
		a, ok := e.Symbols().Lookup(name)
		require.True(t, ok, name)
		assert.True(t, e.Session().WrapperBorrowsArgs(a), name)
	}
}
