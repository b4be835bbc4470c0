//go:build cgo && linux && (amd64 || arm64)

package call_test

import (
	"testing"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/call/internal/callee"
)

// BenchmarkTier calls the assembly fixture int64_t inc(int64_t) at each
// tier inside Batch, one pinned Call at the fastest, and CallSlice over
// 1,024 values at TierCgo (per value), beside a cgo call of the same
// function (bench/jitbench's JITCall does the same with JIT'd code).
func BenchmarkTier(b *testing.B) {
	inc := fixture(callee.Inc, leaf)
	for _, tier := range []call.Tier{call.TierCgo, call.TierSystemStack, call.TierGoStack} {
		f, err := inc.AtTier(tier)
		if err != nil {
			b.Fatal(err)
		}
		g := call.Typed1[int64, int64](f)
		b.Run("impl=held-"+tier.String(), func(b *testing.B) {
			_ = f.Batch(func() {
				x := int64(0)
				for b.Loop() {
					x = g.CallHeld(x)
				}
			})
		})
	}
	b.Run("impl=call-fastest", func(b *testing.B) {
		g := call.Typed1[int64, int64](inc)
		x := int64(0)
		for b.Loop() {
			x, _ = g.Call(x)
		}
	})
	b.Run("impl=slice-cgo", func(b *testing.B) {
		f, _ := inc.AtTier(call.TierCgo)
		g := call.Typed1[int64, int64](f)
		in, out := make([]int64, 1024), make([]int64, 1024)
		for i := 0; i < b.N; i += len(in) {
			_ = g.CallSlice(out, in)
		}
	})
	b.Run("impl=cgo-same-function", func(b *testing.B) {
		x := int64(0)
		for b.Loop() {
			x = callee.CgoInc(x)
		}
	})
}
