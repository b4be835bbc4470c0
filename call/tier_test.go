//go:build cgo && linux && (amd64 || arm64)

package call_test

import (
	"bytes"
	"errors"
	"math"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/call/internal/callee"
	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/rt/keepalive"
)

var leaf = call.Facts{Calls: call.CallsNothing, HasStackSize: true}

// fixture returns the assembly fixture at addr with facts.
func fixture(addr uintptr, facts call.Facts) call.Func {
	g := keepalive.New()
	return call.NewFunc(addr, g, g).WithFacts(facts)
}

// atTiers returns f at each tier from its highest down to TierCgo.
func atTiers(t *testing.T, f call.Func) []call.Func {
	var fs []call.Func
	for tier := f.MaxTier(); ; tier-- {
		g, err := f.AtTier(tier)
		require.NoError(t, err)
		require.Equal(t, tier, g.Tier())
		fs = append(fs, g)
		if tier == call.TierCgo {
			return fs
		}
	}
}

// The tier a Func gets follows from its facts alone, and a host can lower
// it but never raise it.
func TestTierOfFacts(t *testing.T) {
	require.True(t, native.SystemStackCalls, "the system-stack tier must be available with the Go release of go.mod (%s)", runtime.Version())
	sys := call.TierSystemStack
	for _, c := range []struct {
		facts call.Facts
		want  call.Tier
	}{
		{call.Facts{}, call.TierCgo},
		{call.Facts{HasStackSize: true}, call.TierCgo},
		{call.Facts{Calls: call.CallsNonBlocking, HasStackSize: true}, sys},
		{call.Facts{Calls: call.CallsNothing}, sys}, // no stack-size entry: never on the goroutine stack
		{leaf, call.TierGoStack},
		{call.Facts{Calls: call.CallsNothing, HasStackSize: true, StackSize: 16 << 10}, sys}, // beyond the largest frame
		{call.Facts{Calls: call.CallsNothing, HasStackSize: true, StackSize: 1 << 40}, sys},
	} {
		f := fixture(callee.Inc, c.facts)
		assert.Equal(t, c.want, f.MaxTier(), "%+v", c.facts)
		assert.Equal(t, c.want, f.Tier(), "%+v", c.facts)
		assert.Equal(t, c.want, c.facts.MaxTier())
		for tier := c.want + 1; tier <= call.TierGoStack; tier++ {
			_, err := f.AtTier(tier)
			assert.ErrorContains(t, err, "above what the function's facts allow", "%+v at %s", c.facts, tier)
		}
		for _, g := range atTiers(t, f) {
			r, err := call.Typed1[int64, int64](g).Call(41)
			require.NoError(t, err)
			assert.Equal(t, int64(42), r, "at %s", g.Tier())
			r32, err := g.Call(41)
			require.NoError(t, err)
			assert.Equal(t, int32(42), r32, "Func.Call at %s", g.Tier())
		}
	}
	plain := call.NewFunc(callee.Inc, keepalive.New(), keepalive.New())
	assert.Equal(t, call.TierCgo, plain.Tier(), "a Func without facts")
	_, err := plain.AtTier(call.TierSystemStack)
	assert.Error(t, err)
}

// Every argument and result class reaches its register at every tier.
func TestTierSignatures(t *testing.T) {
	for _, f := range atTiers(t, fixture(callee.Add4, leaf)) {
		r, err := call.Typed4[int64, int64, int64, int64, int64](f).Call(1, 20, 300, 4000)
		require.NoError(t, err)
		assert.Equal(t, int64(4321), r, "at %s", f.Tier())
	}
	for _, f := range atTiers(t, fixture(callee.AddF, leaf)) {
		r, err := call.Typed2[float64, float64, float64](f).Call(1.5, 2.25)
		require.NoError(t, err)
		assert.Equal(t, 3.75, r, "at %s", f.Tier())
	}
	for _, f := range atTiers(t, fixture(callee.Mix, leaf)) {
		r, err := call.Typed2[float64, int64, float64](f).Call(7, 0.5)
		require.NoError(t, err)
		assert.Equal(t, 7000.5, r, "at %s", f.Tier())
	}
}

// A leaf that uses all of its proven bound leaves the canary below the
// trampoline's frame intact, for every frame size: the bound (frame,
// return address, red zone) is not underestimated anywhere.
func TestGoStackFullBound(t *testing.T) {
	n := 0
	for size := uint64(0); ; size += 16 {
		f := fixture(callee.Fill, call.Facts{Calls: call.CallsNothing, HasStackSize: true, StackSize: size})
		if f.Tier() != call.TierGoStack {
			require.Greater(t, size, uint64(16<<10-256), "the largest frame holds less than expected")
			break
		}
		for range 3 {
			r, err := call.Typed1[uint64, uint64](f).Call(size)
			require.NoError(t, err)
			require.Equal(t, size, r)
		}
		n++
	}
	t.Logf("%d frame sizes used in full", n)
}

// A leaf that uses more than its facts say is caught by the canary (the
// check the test above relies on works).
func TestGoStackCanary(t *testing.T) {
	f := fixture(callee.Fill, call.Facts{Calls: call.CallsNothing, HasStackSize: true, StackSize: 0})
	require.Equal(t, call.TierGoStack, f.Tier())
	defer func() {
		assert.Contains(t, recover(), "below its proven stack bound")
	}()
	call.Typed1[uint64, uint64](f).Call(512) // 512 bytes more than proven
	t.Error("the overrun was not caught")
}

// Go-stack calls from deep recursion, and from fresh goroutines whose
// stack is the smallest, in every frame size: the trampoline's prologue
// grows the goroutine's stack first.
func TestGoStackGrowth(t *testing.T) {
	sizes := []uint64{0, 512, 3000, 12000}
	fs := make([]call.Func1[uint64, uint64], len(sizes))
	for i, s := range sizes {
		f := fixture(callee.Fill, call.Facts{Calls: call.CallsNothing, HasStackSize: true, StackSize: s})
		require.Equal(t, call.TierGoStack, f.Tier())
		fs[i] = call.Typed1[uint64, uint64](f)
	}
	var rec func(depth int) uint64
	rec = func(depth int) uint64 {
		var pad [64]byte // frames of some size, so the stack grows often
		pad[depth%64] = byte(depth)
		s := uint64(0)
		for i, f := range fs {
			r, err := f.Call(sizes[i])
			if err != nil || r != sizes[i] {
				t.Errorf("depth %d: %d, %v", depth, r, err)
			}
			s += r
		}
		if depth == 0 {
			return s + uint64(pad[0])
		}
		return rec(depth-1) + uint64(pad[depth%64])
	}
	rec(2000)
	// Fresh goroutines (the smallest stacks) call every frame size, between
	// sentinel goroutines whose stacks hold a pattern: a call that ran below
	// its goroutine's stack would write over a neighbour's.
	const pattern = 0x0123456789abcdef
	release := make(chan struct{})
	var wg, sentinels sync.WaitGroup
	for i := range 64 {
		sentinels.Add(1)
		go func() {
			defer sentinels.Done()
			var mine [256]uint64
			for j := range mine {
				mine[j] = pattern ^ uint64(j)
			}
			<-release
			for j := range mine {
				if mine[j] != pattern^uint64(j) {
					t.Errorf("sentinel %d: word %d overwritten with %#x", i, j, mine[j])
					return
				}
			}
		}()
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := fs[i%len(fs)]
			if r, _ := f.Call(sizes[i%len(fs)]); r != sizes[i%len(fs)] {
				t.Errorf("fresh goroutine: %d", r)
			}
		}()
	}
	wg.Wait()
	close(release)
	sentinels.Wait()
}

// hammer calls f (callee_inc) from several goroutines while stop is open,
// each checking its results; it returns the number of calls.
func hammer(t *testing.T, fs []call.Func, stop <-chan struct{}) int64 {
	var n atomic.Int64
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := call.Typed1[int64, int64](fs[i%len(fs)])
			for x := int64(0); ; x++ {
				select {
				case <-stop:
					return
				default:
				}
				var bad error
				_ = f.Func().Batch(func() {
					for j := range int64(100) {
						if r := f.CallHeld(x + j); r != x+j+1 {
							bad = errors.New("wrong result")
						}
					}
				})
				if r, err := f.Call(x); err != nil || r != x+1 || bad != nil {
					t.Errorf("call at %s: %d, %v, %v", fs[i%len(fs)].Tier(), r, err, bad)
					return
				}
				n.Add(101)
				runtime.Gosched() // lets the collecting goroutine run on 2 CPUs
			}
		}()
	}
	wg.Wait()
	return n.Load()
}

// Fast-tier calls in hot loops while another goroutine forces garbage
// collections over a large heap: the collector waits for each call, and
// no call sees a moved stack.
func TestTierUnderGC(t *testing.T) {
	heap := make([][]*[64]byte, 256)
	for i := range heap {
		heap[i] = make([]*[64]byte, 1024)
		for j := range heap[i] {
			heap[i][j] = new([64]byte)
		}
	}
	fs := atTiers(t, fixture(callee.Inc, leaf))
	stop := make(chan struct{})
	var gcs atomic.Int64
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			runtime.GC()
			gcs.Add(1)
			heap[gcs.Load()%256] = make([]*[64]byte, 1024) // garbage
		}
	}()
	time.AfterFunc(testDuration(), func() { close(stop) })
	n := hammer(t, fs, stop)
	t.Logf("%d calls, %d collections", n, gcs.Load())
	assert.GreaterOrEqual(t, gcs.Load(), int64(3), "too few collections ran beside the calls to prove anything")
	runtime.KeepAlive(heap)
}

// Fast-tier calls with the CPU profiler on (SIGPROF samples land in the
// native code) and goroutines spinning in Go (asynchronous preemption
// signals): neither crashes, nor is a call preempted in native code.
func TestTierUnderProfilerAndPreemption(t *testing.T) {
	var prof bytes.Buffer
	require.NoError(t, pprof.StartCPUProfile(&prof))
	defer pprof.StopCPUProfile()
	stop := make(chan struct{})
	for range 2 * runtime.GOMAXPROCS(0) {
		go func() {
			x := 0
			for {
				select {
				case <-stop:
					return
				default:
				}
				for i := range 1 << 16 {
					x += i
				}
			}
		}()
	}
	spin := atTiers(t, fixture(callee.Spin, leaf))
	var wg sync.WaitGroup
	for _, f := range spin {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := call.Typed1[uint64, uint64](f)
			for {
				select {
				case <-stop:
					return
				default:
				}
				if r, err := s.Call(100000); err != nil || r != 100000 {
					t.Errorf("spin at %s: %d, %v", f.Tier(), r, err)
					return
				}
			}
		}()
	}
	time.AfterFunc(testDuration(), func() { close(stop) })
	n := hammer(t, atTiers(t, fixture(callee.Inc, leaf)), stop)
	wg.Wait()
	pprof.StopCPUProfile()
	t.Logf("%d calls, profile of %d bytes", n, prof.Len())
}

// Closing the code's guard (what a release of the allocation does) while
// goroutines make fast-tier calls waits for the calls in flight, and no
// call runs after it.
func TestTierRelease(t *testing.T) {
	for _, tier := range []call.Tier{call.TierGoStack, call.TierSystemStack} {
		pin, session := keepalive.New(), keepalive.New()
		f, err := call.NewFunc(callee.Inc, pin, session).WithFacts(leaf).AtTier(tier)
		require.NoError(t, err)
		var closed atomic.Bool
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				g := call.Typed1[int64, int64](f)
				for {
					after := closed.Load()
					r, err := g.Call(1)
					if err != nil {
						assert.ErrorIs(t, err, call.ErrReleased)
						return
					}
					assert.False(t, after, "a call started after the release ran")
					assert.Equal(t, int64(2), r)
				}
			}()
		}
		time.Sleep(20 * time.Millisecond)
		pin.Close() // waits for the calls in flight
		closed.Store(true)
		wg.Wait()
	}
}

// A slice call runs the function over every element at every tier, for
// each element type.
func TestCallSlice(t *testing.T) {
	in := make([]int64, 1000)
	for i := range in {
		in[i] = int64(i) - 500
	}
	for _, f := range atTiers(t, fixture(callee.Inc, leaf)) {
		out := make([]int64, len(in))
		require.NoError(t, call.Typed1[int64, int64](f).CallSlice(out, in))
		for i := range in {
			require.Equal(t, in[i]+1, out[i], "at %s", f.Tier())
		}
		in32 := []int32{-3, 0, 7, math.MaxInt32 - 1}
		out32 := make([]int32, len(in32))
		require.NoError(t, call.Typed1[int32, int32](f).CallSlice(out32, in32))
		assert.Equal(t, []int32{-2, 1, 8, math.MaxInt32}, out32)
		in8 := []int8{-128, -1, 5}
		out16 := make([]int16, len(in8))
		require.NoError(t, call.Typed1[int16, int8](f).CallSlice(out16, in8), "sign-extended int8 in, int16 out")
		assert.Equal(t, []int16{-127, 0, 6}, out16)
		outb := make([]bool, 3)
		require.NoError(t, call.Typed1[bool, int64](f).CallSlice(outb, []int64{-1, 0, 0xff}))
		assert.Equal(t, []bool{false, true, false}, outb, "a C bool's low byte")
		assert.ErrorContains(t, call.Typed1[int64, int64](f).CallSlice(out[:3], in[:4]), "lengths")
		require.NoError(t, call.Typed1[int64, int64](f).CallSlice(nil, nil))
	}
	for _, f := range atTiers(t, fixture(callee.AddF, leaf)) {
		a, b := []float64{1, 2.5, -1}, []float64{0.25, 0.5, 1}
		out := make([]float64, 3)
		require.NoError(t, call.Typed2[float64, float64, float64](f).CallSlice(out, a, b))
		assert.Equal(t, []float64{1.25, 3, 0}, out, "at %s", f.Tier())
	}
	for _, f := range atTiers(t, fixture(callee.Mix, leaf)) {
		out := make([]float64, 2)
		require.NoError(t, call.Typed2[float64, int64, float64](f).CallSlice(out, []int64{1, 2}, []float64{0.5, 0.25}))
		assert.Equal(t, []float64{1000.5, 2000.25}, out, "at %s", f.Tier())
	}
	pin := keepalive.New()
	f := call.Typed1[int64, int64](call.NewFunc(callee.Inc, pin, keepalive.New()))
	pin.Close()
	assert.ErrorIs(t, f.CallSlice(make([]int64, 1), make([]int64, 1)), call.ErrReleased)
}

// The slice calls and the fast tiers allocate nothing.
func TestTierAllocs(t *testing.T) {
	in, out := make([]int64, 64), make([]int64, 64)
	for _, f := range atTiers(t, fixture(callee.Inc, leaf)) {
		g := call.Typed1[int64, int64](f)
		assert.Zero(t, testing.AllocsPerRun(100, func() { _, _ = g.Call(1) }), "Call at %s", f.Tier())
		assert.Zero(t, testing.AllocsPerRun(100, func() { _ = g.CallSlice(out, in) }), "CallSlice at %s", f.Tier())
	}
	for _, f := range atTiers(t, fixture(callee.Mix, leaf)) {
		g := call.Typed2[float64, int64, float64](f)
		assert.Zero(t, testing.AllocsPerRun(100, func() { _, _ = g.Call(1, 0.5) }), "a floating Call at %s", f.Tier())
	}
}

func testDuration() time.Duration {
	if testing.Short() {
		return 200 * time.Millisecond
	}
	return time.Second
}
