//go:build linux && cgo

package jit_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/jit"
)

// TestRemoveWhileCallingAtEachTier: Remove while 8 goroutines call a leaf
// at each tier waits for the calls in flight, and later calls fail with
// ErrReleased: the fast tiers pin the code as the cgo tier does.
func TestRemoveWhileCallingAtEachTier(t *testing.T) {
	j := start(t, jit.Options{})
	ctx := context.Background()
	for _, tier := range []call.Tier{call.TierGoStack, call.TierSystemStack, call.TierCgo} {
		t.Run(tier.String(), func(t *testing.T) {
			m, sq := addSquare(t, j)
			require.Equal(t, call.TierGoStack, sq.MaxTier(), "long sq(long) is a leaf")
			sq, err := sq.AtTier(tier)
			require.NoError(t, err)
			stop := make(chan struct{})
			defer close(stop)
			wait := hammer(sq, stop)
			time.Sleep(50 * time.Millisecond)
			require.NoError(t, m.Remove(ctx))
			calls, bad, released := wait()
			assert.Zero(t, bad)
			assert.True(t, released, "calls after the removal fail with ErrReleased")
			assert.Positive(t, calls)
		})
	}
}
