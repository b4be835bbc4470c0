//go:build cgo

package executor_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/internal/cmem"
	"github.com/orcgo/orcrt/rt/svctest"
)

// hostFunc returns an executor and a Func for int orcrt_test_neg(int),
// native code from a shared object opened at run time.
func hostFunc(tb testing.TB) (*executor.Executor, call.Func) {
	ex, err := executor.New(executor.Options{})
	require.NoError(tb, err)
	tb.Cleanup(ex.Close)
	neg := svctest.JITLib(tb)("orcrt_test_neg")
	f, err := ex.Func(neg)
	require.NoError(tb, err)
	return ex, f
}

func TestFuncCallsUntilShutdown(t *testing.T) {
	ex, f := hostFunc(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				r, err := f.Call(int32(g*1000 + i))
				if !assert.NoError(t, err) || !assert.Equal(t, -int32(g*1000+i), r) {
					return
				}
			}
		}()
	}
	wg.Wait()
	sum := int32(0)
	require.NoError(t, f.Batch(func() {
		for i := range 100 {
			sum += f.CallHeld(int32(i))
		}
	}))
	assert.Equal(t, int32(-4950), sum)

	ex.Close()
	_, err := f.Call(1)
	assert.ErrorIs(t, err, call.ErrShutDown)
	assert.True(t, errors.Is(f.Batch(func() { t.Error("Batch ran after shutdown") }), call.ErrShutDown))
}

// The deprecated Executor.Batch keeps its promise of 718c928: one Session
// token, which shutdown waits for, and ErrShutDown after it.
func TestExecutorBatch(t *testing.T) {
	ex, f := hostFunc(t)
	sum := int32(0)
	require.NoError(t, ex.Batch(func() {
		for i := range 100 {
			sum += f.CallHeld(int32(i))
		}
	}))
	assert.Equal(t, int32(-4950), sum)
	batch := func() { f.CallHeld(3) }
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _ = ex.Batch(batch) }), "Executor.Batch")

	entered, release, closed := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		_ = ex.Batch(func() { close(entered); <-release })
	}()
	<-entered
	go func() { ex.Close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("Close returned while Executor.Batch ran")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-closed
	assert.ErrorIs(t, ex.Batch(func() { t.Error("Batch ran after shutdown") }), call.ErrShutDown)
}

func TestFuncRefusesData(t *testing.T) {
	ex, err := executor.New(executor.Options{})
	require.NoError(t, err)
	defer ex.Close()
	var data [64]byte
	_, err = ex.Func(uintptr(unsafePointer(&data)))
	assert.ErrorContains(t, err, "executor: Func")
	_, err = ex.Func(0)
	assert.Error(t, err)
}

func TestFuncAllocationFree(t *testing.T) {
	_, f := hostFunc(t)
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = f.Call(3) }), "Func.Call")
	batch := func() {
		for range 16 {
			f.CallHeld(3)
		}
	}
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _ = f.Batch(batch) }), "Batch with CallHeld")
}

// BenchmarkFunc measures a Go->native call of int f(int), plain and typed
// (Typed1), beside its floors
// in the same run: an empty cgo call, and an empty cgo call with one
// keepalive acquire and release (what a guarded call adds).
func BenchmarkFunc(b *testing.B) {
	ex, f := hostFunc(b)
	b.Run("call=guarded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = f.Call(3)
		}
	})
	b.Run("call=batched", func(b *testing.B) {
		b.ReportAllocs()
		_ = f.Batch(func() {
			for b.Loop() {
				f.CallHeld(3)
			}
		})
	})
	typed := call.Typed1[int32, int32](f)
	b.Run("call=typed-guarded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = typed.Call(3)
		}
	})
	b.Run("call=typed-batched", func(b *testing.B) {
		_ = f.Batch(func() {
			for b.Loop() {
				typed.CallHeld(3)
			}
		})
	})
	b.Run("call=floor-empty-cgo", func(b *testing.B) {
		for b.Loop() {
			cmem.CallEmpty()
		}
	})
	b.Run("call=floor-empty-cgo-keepalive", func(b *testing.B) {
		s := ex.Session()
		for b.Loop() {
			tok, _ := s.AcquireKeepalive()
			cmem.CallEmpty()
			tok.Release()
		}
	})
}

// BenchmarkFuncRatio measures the guarded calls against their floor (an
// empty cgo call with one keepalive pair) in alternating blocks of 1000
// calls, and reports the median of the adjacent blocks' ratios: on a VM
// whose speed drifts by 30-50% between benchmark runs, only
// measurements a few microseconds apart compare.
func BenchmarkFuncRatio(b *testing.B) {
	ex, f := hostFunc(b)
	typed := call.Typed1[int32, int32](f)
	s := ex.Session()
	const block = 1000
	floor := func() {
		for range block {
			tok, _ := s.AcquireKeepalive()
			cmem.CallEmpty()
			tok.Release()
		}
	}
	calls := map[string]func(){
		"guarded": func() {
			for range block {
				_, _ = f.Call(3)
			}
		},
		"typed-guarded": func() {
			for range block {
				_, _ = typed.Call(3)
			}
		},
	}
	for _, name := range []string{"guarded", "typed-guarded"} {
		call := calls[name]
		b.Run("call="+name, func(b *testing.B) {
			var ratios []float64
			for b.Loop() {
				t0 := time.Now()
				floor()
				t1 := time.Now()
				call()
				t2 := time.Now()
				ratios = append(ratios, float64(t2.Sub(t1))/float64(t1.Sub(t0)))
			}
			slices.Sort(ratios)
			b.ReportMetric(ratios[len(ratios)/2], "x-floor")
			b.ReportMetric(0, "ns/op")
		})
	}
}

func unsafePointer(p *[64]byte) unsafe.Pointer { return unsafe.Pointer(p) }

func TestLookupNotExported(t *testing.T) {
	ex, err := executor.New(executor.Options{})
	require.NoError(t, err)
	defer ex.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = ex.LookupAll(ctx, "orcrt_test_never", "orcrt_test_nor")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorContains(t, err, `executor: lookup of "orcrt_test_never", "orcrt_test_nor": not exported with orcrt_export`)
	ex.Close()
	_, err = ex.Lookup(context.Background(), "orcrt_test_never")
	assert.ErrorIs(t, err, call.ErrShutDown, "a closed executor does not wait")
}

func TestZeroFunc(t *testing.T) {
	_, err := call.Func{}.Call(1)
	assert.ErrorContains(t, err, "executor: call of the zero Func")
	assert.Error(t, call.Func{}.Batch(func() { t.Error("Batch ran on the zero Func") }))
}
