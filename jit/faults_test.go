//go:build linux && cgo

package jit_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/jit"
)

const cxxSrc = `
#include <stdexcept>
#include <string>
static long built = 0;
struct Init { Init() { built = 42; } };
static Init init;
thread_local long perThread = 5;
extern "C" long ctor_ran() { return built; }
extern "C" long tls_bump(long x) { perThread += x; return perThread; }
extern "C" long catches(long x) {
  try {
    if (x > 0) throw std::runtime_error(std::string(x, 'e'));
    return -1;
  } catch (const std::exception &e) {
    return (long)std::string(e.what()).size();
  }
}
`

func TestCXXWithORCRuntime(t *testing.T) {
	j := start(t, jit.Options{})
	ctx := context.Background()
	m, err := j.AddCXX(ctx, "cxx.cpp", cxxSrc)
	require.NoError(t, err)
	fs, err := m.Lookup(ctx, "ctor_ran", "tls_bump", "catches")
	require.NoError(t, err)
	assert.Equal(t, int64(42), call1(t, fs[0], 0), "static constructor")
	assert.Equal(t, int64(7), call1(t, fs[2], 7), "exception caught")
	assert.Equal(t, int64(-1), call1(t, fs[2], 0))
	// thread_local: each OS thread starts from 5.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			got, err := call.Typed1[int64, int64](fs[1]).Call(1)
			assert.NoError(t, err)
			assert.GreaterOrEqual(t, got, int64(6))
		})
	}
	wg.Wait()
	require.NoError(t, m.Remove(ctx))
}

// hammer calls f from 8 goroutines until stop is closed, counting calls
// and the errors other than ErrReleased.
func hammer(f call.Func, stop <-chan struct{}) (wait func() (calls, bad int64, released bool)) {
	var calls, bad atomic.Int64
	var released atomic.Bool
	var wg sync.WaitGroup
	g := call.Typed1[int64, int64](f)
	for range 8 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				got, err := g.Call(20)
				switch {
				case errors.Is(err, call.ErrReleased):
					released.Store(true)
					return
				case err != nil || got != 400:
					bad.Add(1)
				}
				calls.Add(1)
			}
		})
	}
	return func() (int64, int64, bool) {
		wg.Wait()
		return calls.Load(), bad.Load(), released.Load()
	}
}

// TestRemoveWhileCalling: Remove while 8 goroutines call a leaf, at each
// tier, waits for the calls in flight, and later calls fail with
// ErrReleased: the fast tiers pin the code as the cgo tier does.
func TestRemoveWhileCalling(t *testing.T) {
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
			t.Logf("%d calls before the removal", calls)
		})
	}
}

func TestControllerKilledWhileCalling(t *testing.T) {
	var stderr strings.Builder
	j := start(t, jit.Options{Stderr: &syncWriter{w: &stderr}})
	ctx := context.Background()
	m, sq := addSquare(t, j)
	stop := make(chan struct{})
	wait := hammer(sq, stop)
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, syscall.Kill(j.ControllerPID(), syscall.SIGKILL))
	time.Sleep(100 * time.Millisecond) // calls go on after the controller died
	_, err := j.AddC(ctx, "next", "long g(long x) { return x; }")
	var exit *jit.ControllerExitError
	require.ErrorAs(t, err, &exit)
	assert.ErrorIs(t, err, jit.ErrControllerGone)
	assert.Equal(t, "signal: killed", exit.State)
	// What the module defines was linked at add: it is still found.
	fs, err := m.Lookup(ctx, "sq")
	require.NoError(t, err)
	assert.Equal(t, int64(36), call1(t, fs[0], 6))
	_, err = m.Lookup(ctx, "not_defined")
	assert.ErrorIs(t, err, jit.ErrControllerGone)
	close(stop)
	calls, bad, released := wait()
	assert.Zero(t, bad)
	assert.False(t, released, "no call failed")
	assert.Positive(t, calls)

	require.NoError(t, j.Restart(ctx))
	m2, err := j.AddC(ctx, "next", "long g(long x) { return x + 1; }")
	require.NoError(t, err)
	gs, err := m2.Lookup(ctx, "g")
	require.NoError(t, err)
	assert.Equal(t, int64(2), call1(t, gs[0], 1))
	assert.Equal(t, int64(49), call1(t, sq, 7), "the old module still runs")
}

func TestAutoRestart(t *testing.T) {
	j := start(t, jit.Options{AutoRestart: true})
	ctx := context.Background()
	pid := j.ControllerPID()
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	require.Eventually(t, func() bool {
		_, err := os.Stat(fmt.Sprintf("/proc/%d/stat", pid))
		return err != nil
	}, 10*time.Second, 10*time.Millisecond)
	time.Sleep(50 * time.Millisecond)
	m, err := j.AddC(ctx, "m", "long f(long x) { return x; }")
	require.NoError(t, err)
	assert.NotEqual(t, pid, j.ControllerPID())
	fs, err := m.Lookup(ctx, "f")
	require.NoError(t, err)
	assert.Equal(t, int64(3), call1(t, fs[0], 3))
}

func TestCompileDeadline(t *testing.T) {
	j := start(t, jit.Options{})
	fifo := filepath.Join(t.TempDir(), "never.h")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err := j.AddC(ctx, "hangs", fmt.Sprintf("#include %q\n", fifo))
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(t0), 5*time.Second)
	// The compile stopped: nothing reads the header any more (opening a
	// FIFO without a reader fails with ENXIO).
	require.Eventually(t, func() bool {
		f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			f.Close()
		}
		return errors.Is(err, syscall.ENXIO)
	}, 2*time.Second, 5*time.Millisecond, "clang still reads the header")
	_, err = j.AddIR(context.Background(), "after.ll", []byte(sumIR))
	require.NoError(t, err)
}

type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// TestDone: a killed controller is reported at once through Done, Err
// and ControllerPID, before any request fails.
func TestDone(t *testing.T) {
	j := start(t, jit.Options{})
	select {
	case <-j.Done():
		t.Fatal("Done closed while the controller runs")
	default:
	}
	require.NoError(t, j.Err())
	pid := j.ControllerPID()
	require.NotZero(t, pid)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	select {
	case <-j.Done():
	case <-time.After(100 * time.Millisecond):
		t.Fatal("Done not closed 100 ms after the controller was killed")
	}
	var exit *jit.ControllerExitError
	require.ErrorAs(t, j.Err(), &exit)
	assert.Equal(t, "signal: killed", exit.State)
	assert.Zero(t, j.ControllerPID())

	require.NoError(t, j.Restart(context.Background()))
	assert.NoError(t, j.Err())
	assert.NotZero(t, j.ControllerPID())
}

// TestRemoveExpiredContext: a Remove whose context has already ended
// leaves the module in place; a later Remove removes it.
func TestRemoveExpiredContext(t *testing.T) {
	j := start(t, jit.Options{})
	m, sq := addSquare(t, j)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, m.Remove(ctx), context.Canceled)
	assert.Equal(t, int64(9), call1(t, sq, 3), "still there")
	require.NoError(t, m.Remove(context.Background()))
	_, err := call.Typed1[int64, int64](sq).Call(3)
	assert.ErrorIs(t, err, call.ErrReleased)
}
