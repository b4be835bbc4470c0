package arch

import (
	"errors"
	"os"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPageSize(t *testing.T) {
	p := PageSize()
	assert.Equal(t, uintptr(os.Getpagesize()), p)
	assert.NotZero(t, p)
	assert.Zero(t, p&(p-1), "page size must be a power of two")
}

func TestCacheInfo(t *testing.T) {
	c := CacheInfo()
	for _, n := range []uintptr{c.DataLine, c.InstLine} {
		assert.True(t, n >= 4 && n <= 2048 && n&(n-1) == 0, "implausible line size %d", n)
	}
	assert.NotEmpty(t, c.Source)
	if c.Coherent {
		assert.False(t, c.CleanD || c.InvalidateI)
	}
	t.Logf("%+v", c)
}

func TestFlushICacheReadableMemory(t *testing.T) {
	if !Supported {
		t.Skip("no cache maintenance on this GOARCH")
	}
	b := make([]byte, 3*4096)
	FlushICache(uintptr(unsafe.Pointer(&b[1])), uintptr(len(b)-1))
	FlushICache(uintptr(unsafe.Pointer(&b[0])), 0)
}

func TestSyncCores(t *testing.T) {
	err := SyncCores()
	if errors.Is(err, ErrNotSupported) {
		t.Skipf("kernel lacks membarrier sync-core: %v", err)
	}
	require.NoError(t, err)
	require.NoError(t, SyncCores(), "second call reuses the registration")
}
