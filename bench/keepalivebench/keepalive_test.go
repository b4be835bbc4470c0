package keepalivebench

import (
	"testing"

	"github.com/orcgo/orcrt/rt/keepalive"
)

// stripes matches what keepalive.New picks on this machine, so the
// sharded floor is the same shape as the group under test.
func stripes() int { return keepalive.New().Stripes() }

func BenchmarkKeepalive(b *testing.B) {
	b.Run("impl=orcrt", func(b *testing.B) {
		g := keepalive.New()
		run(b, func() {
			t, ok := g.Acquire()
			if !ok {
				b.Fatal("acquire failed")
			}
			t.Release()
		})
	})
	b.Run("impl=atomic-pair", func(b *testing.B) {
		var p AtomicPair
		run(b, func() {
			p.Acquire()
			p.Release()
		})
	})
	b.Run("impl=mutex-group", func(b *testing.B) {
		var g MutexGroup
		run(b, func() {
			if !g.Acquire() {
				b.Fatal("acquire failed")
			}
			g.Release()
		})
	})
	b.Run("impl=sharded-floor", func(b *testing.B) {
		f := NewShardedFloor(stripes())
		run(b, func() {
			f.Release(f.Acquire())
		})
	})
}

// run measures op serially and in parallel. op is passed as a func value
// so all four implementations pay the same indirect call.
func run(b *testing.B, op func()) {
	b.Run("mode=serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			op()
		}
	})
	b.Run("mode=parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				op()
			}
		})
	})
}
