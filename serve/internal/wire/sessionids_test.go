//go:build cgo && linux

package wire

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestMapCounter: the session counter is shared through the memfd.
func TestMapCounter(t *testing.T) {
	fd, err := unix.MemfdCreate("test-ids", unix.MFD_CLOEXEC)
	require.NoError(t, err)
	defer unix.Close(fd)
	require.NoError(t, unix.Ftruncate(fd, 8))
	var ctrs []*uint64
	for range 2 {
		dup, err := unix.Dup(fd)
		require.NoError(t, err)
		ctr, unmap, err := MapCounter(dup)
		require.NoError(t, err)
		defer unmap()
		ctrs = append(ctrs, ctr)
	}
	*ctrs[0]++
	*ctrs[1]++
	assert.Equal(t, uint64(2), *ctrs[0])
}
