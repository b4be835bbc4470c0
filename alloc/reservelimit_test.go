//go:build cgo && (amd64 || arm64)

package alloc

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/sps"
)

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
