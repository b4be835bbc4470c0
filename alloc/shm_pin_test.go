//go:build cgo && (amd64 || arm64)

package alloc

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt/keepalive"
	"github.com/orcgo/orcrt/sps"
)

// shmPinSize is the reservation of the pin tests: a code page, a
// read-only data page, and two pages no allocation covers.
const shmPinSize = 0x4000

// shmCode reserves shmPinSize bytes from the shared-memory mapper through
// its Go API, writes mc.record to the first page through the controller's
// view and returns the reservation's base.
func (e *env) shmCode() sps.Addr {
	e.t.Helper()
	base, name, err := e.sm.Reserve(shmPinSize)
	require.NoError(e.t, err)
	view := controllerView(e.t, name, shmPinSize, true)
	copy(view, mc.record)
	view[0x1000] = 0x5a
	return base
}

// shmInitCode initializes the allocation at base: R-X code at base, R--
// data at base+0x1000, and a dealloc action that runs the code itself
// (what a pin must keep mapped) to record id in l. It returns the key.
func (e *env) shmInitCode(base sps.Addr, l *cLog, id uint64) sps.Addr {
	e.t.Helper()
	key, err := e.sm.Initialize(base, &sps.SharedFinalizeRequest{
		Segments: []sps.SharedSegFinalizeRequest{
			shmSeg(sps.Read|sps.Exec, base, 0x1000),
			shmSeg(sps.Read, base+0x1000, 0x1000),
		},
		Actions: []sps.ActionPair{pair(none, sps.WrapperCall{Fn: base, Args: words(uint64(l.p), id)})},
	})
	require.NoError(e.t, err)
	require.Equal(e.t, base, key)
	return key
}

// shmCallInFlight makes an env with pinned shared-memory code whose
// dealloc action records 1 in l, and holds a token of its pin, as a Go
// call into the code would.
func shmCallInFlight(t *testing.T) (e *env, l *cLog, base sps.Addr, pin *keepalive.Group, tok keepalive.Token) {
	t.Helper()
	e = newEnv(t, Config{})
	l = newLog(t, 8)
	base = e.shmCode()
	e.shmInitCode(base, l, 1)
	pin, err := e.sm.Pin(base + 8)
	require.NoError(t, err)
	tok, ok := pin.Acquire()
	require.True(t, ok)
	return e, l, base, pin, tok
}

// inBackground runs f on a goroutine; the channel gets its result.
func inBackground(f func() error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	return ch
}

// waitLater waits for the mapper's releases delayed by Go calls
// (goleak), failing t rather than hanging if one never finishes.
func waitLater(t *testing.T, m *SharedMemoryMapper) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		m.later.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("a release delayed by Go calls never finished")
	}
}

// notYet fails t if ch delivers within d: the call must still be waiting.
func notYet(t *testing.T, ch <-chan error, d time.Duration, what string) {
	t.Helper()
	select {
	case err := <-ch:
		t.Fatalf("%s returned under a running call: %v", what, err)
	case <-time.After(d):
	}
}

// TestSharedMemoryDeinitializeWaitsForPin proves that Deinitialize seals
// the allocation at once (no new pin, no new token) but runs its dealloc
// actions only after the last Go call into it has returned.
func TestSharedMemoryDeinitializeWaitsForPin(t *testing.T) {
	e, l, base, pin, tok := shmCallInFlight(t)

	done := inBackground(func() error { return e.sm.Deinitialize([]sps.Addr{base}) })
	// Closed, not Closing: once sealed, every later Acquire fails.
	require.Eventually(t, pin.Closed, time.Second, time.Millisecond)
	notYet(t, done, 50*time.Millisecond, "deinitialize")
	assert.Empty(t, l.entries(), "dealloc actions wait for the call")
	_, err := e.sm.Pin(base)
	assert.ErrorIs(t, err, ErrUnpinnable)
	_, ok := pin.Acquire()
	assert.False(t, ok, "no new call once deinitialize has begun")
	assert.Equal(t, mc.record[0], mem(base, 1)[0], "the code stays readable")

	tok.Release()
	require.NoError(t, <-done)
	assert.Equal(t, []uint64{1}, l.entries())
}

// TestSharedMemoryReleaseWaitsForPin proves that Release seals the
// reservation's allocations and keeps the mapping and the dealloc
// actions waiting until the last Go call into it has returned.
func TestSharedMemoryReleaseWaitsForPin(t *testing.T) {
	e, l, base, pin, tok := shmCallInFlight(t)

	done := inBackground(func() error { return e.sm.Release([]sps.Addr{base}) })
	require.Eventually(t, pin.Closed, time.Second, time.Millisecond)
	notYet(t, done, 50*time.Millisecond, "release")
	assert.Empty(t, l.entries(), "dealloc actions wait for the call")
	_, err := e.sm.Pin(base)
	assert.Error(t, err) // which error: TestSharedMemoryPinDuringRelease
	_, ok := pin.Acquire()
	assert.False(t, ok, "no new call once release has begun")
	// /proc/self/maps first: reading unmapped memory would crash the
	// test binary instead of failing the test.
	require.True(t, mapped(t, base), "the code stays mapped")
	assert.Equal(t, mc.record[0], mem(base, 1)[0], "and readable")
	assert.Equal(t, byte(0x5a), mem(base+0x1000, 1)[0], "the data too")

	tok.Release()
	require.NoError(t, <-done)
	assert.Equal(t, []uint64{1}, l.entries())
	assert.False(t, e.sm.Holds(base))
	assert.False(t, mapped(t, base), "unmapped once the call returned")
}

// TestSharedMemoryPinDuringRelease proves that Pin answers ErrUnpinnable,
// not ErrNotAllocated, for memory whose release waits for Go calls: it is
// JIT'd memory going away (ErrUnpinnable's contract), as MemoryManager
// answers for its dying reservations.
func TestSharedMemoryPinDuringRelease(t *testing.T) {
	e, _, base, pin, tok := shmCallInFlight(t)
	done := inBackground(func() error { return e.sm.Release([]sps.Addr{base}) })
	require.Eventually(t, pin.Closed, time.Second, time.Millisecond)
	_, err := e.sm.Pin(base)
	assert.ErrorIs(t, err, ErrUnpinnable)
	tok.Release()
	require.NoError(t, <-done)
	_, err = e.sm.Pin(base)
	assert.ErrorIs(t, err, ErrNotAllocated, "unmapped: no longer JIT'd memory")
}

// TestSharedMemoryPinWaitTimeout proves that past the pin wait
// Deinitialize and Release answer a *PinnedError at once and leave the
// dealloc actions (and, for release, the unmapping) to the last call's
// return.
func TestSharedMemoryPinWaitTimeout(t *testing.T) {
	const wait = 30 * time.Millisecond
	t.Run("deinitialize", func(t *testing.T) {
		e, l, base, _, tok := shmCallInFlight(t)
		e.sm.SetPinWait(wait)
		start := time.Now()
		err := e.sm.Deinitialize([]sps.Addr{base})
		assert.Less(t, time.Since(start), time.Second)
		var pe *PinnedError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, &PinnedError{Op: "deinitialize", Addr: uint64(base), Wait: wait}, pe)
		// Not run late either: the finishing goroutine waits for the call.
		time.Sleep(50 * time.Millisecond)
		assert.Empty(t, l.entries(), "never run under a running call")

		tok.Release()
		require.Eventually(t, func() bool { return len(l.entries()) == 1 }, time.Second, time.Millisecond)
		waitLater(t, e.sm)
		require.NoError(t, e.sm.Release([]sps.Addr{base}))
		assert.Equal(t, []uint64{1}, l.entries(), "the dealloc action ran once")
	})
	t.Run("release", func(t *testing.T) {
		e, l, base, _, tok := shmCallInFlight(t)
		e.sm.SetPinWait(wait)
		var pe *PinnedError
		require.ErrorAs(t, e.sm.Release([]sps.Addr{base}), &pe)
		assert.Equal(t, &PinnedError{Op: "release", Addr: uint64(base), Wait: wait}, pe)
		time.Sleep(50 * time.Millisecond)
		assert.Empty(t, l.entries())
		require.True(t, mapped(t, base), "never unmapped under a running call")
		assert.Equal(t, mc.record[0], mem(base, 1)[0])

		tok.Release()
		require.Eventually(t, func() bool { return len(l.entries()) == 1 }, time.Second, time.Millisecond)
		waitLater(t, e.sm)
		assert.False(t, mapped(t, base), "unmapped once the call returned")
	})
}

// TestSharedMemoryReleasePinnedErrorWait proves that every reservation a
// release call gives up on reports the call's pin wait, not only the
// first one (the call waits once for all of them).
func TestSharedMemoryReleasePinnedErrorWait(t *testing.T) {
	e := newEnv(t, Config{})
	l := newLog(t, 8)
	e.sm.SetPinWait(20 * time.Millisecond)
	var bases []sps.Addr
	var toks []keepalive.Token
	for i := range 2 {
		base := e.shmCode()
		e.shmInitCode(base, l, uint64(i))
		pin, err := e.sm.Pin(base)
		require.NoError(t, err)
		tok, ok := pin.Acquire()
		require.True(t, ok)
		bases, toks = append(bases, base), append(toks, tok)
	}
	err := e.sm.Release(bases)
	require.Error(t, err)
	for i := range toks {
		toks[i].Release()
	}
	waitLater(t, e.sm)
	assert.ElementsMatch(t, []uint64{0, 1}, l.entries())
	assert.Equal(t, 2, strings.Count(err.Error(), "still running after 20ms"), err.Error())
}

// TestSharedMemoryPinCode proves that PinCode tells the allocation's code
// from its data, that Pin tells memory of no allocation from memory of no
// reservation, and that a deinitialized key can be initialized and pinned
// anew.
func TestSharedMemoryPinCode(t *testing.T) {
	e := newEnv(t, Config{})
	l := newLog(t, 8)
	base := e.shmCode()
	key := e.shmInitCode(base, l, 1)

	pin, code, err := e.sm.PinCode(base + 0xff0)
	require.NoError(t, err)
	assert.True(t, code, "in the R-X segment")
	data, code, err := e.sm.PinCode(base + 0x1000)
	require.NoError(t, err)
	assert.False(t, code, "in the R-- segment")
	assert.Same(t, pin, data, "one pin per allocation")

	_, _, err = e.sm.PinCode(base + 0x2000)
	assert.ErrorIs(t, err, ErrUnpinnable, "reserved, in no allocation")
	_, err = e.sm.Pin(base + shmPinSize)
	assert.ErrorIs(t, err, ErrNotAllocated, "outside every reservation")
	_, err = e.sm.Pin(base - 1)
	assert.ErrorIs(t, err, ErrNotAllocated)

	require.NoError(t, e.sm.Deinitialize([]sps.Addr{key}))
	assert.True(t, pin.Closed(), "deinitialize sealed the pin without a call in flight")
	_, err = e.sm.Pin(base)
	assert.ErrorIs(t, err, ErrUnpinnable)

	// The mapper forgets deinitialized allocations: the key is free.
	e.shmInitCode(base, l, 2)
	again, code, err := e.sm.PinCode(base)
	require.NoError(t, err)
	assert.True(t, code)
	assert.NotSame(t, pin, again, "a new allocation, a new pin")
	tok, ok := again.Acquire()
	require.True(t, ok)
	tok.Release()
	require.NoError(t, e.sm.Release([]sps.Addr{base}))
	assert.Equal(t, []uint64{1, 2}, l.entries())
}

// TestSharedMemoryPinHammer proves, under -race, that a token acquired
// while Deinitialize runs is always released before Deinitialize returns:
// 8 goroutines pin and call into one allocation while it is deinitialized,
// round after round on the same key.
func TestSharedMemoryPinHammer(t *testing.T) {
	const workers, rounds = 8, 20
	e := newEnv(t, Config{})
	l := newLog(t, rounds)
	base := e.shmCode()
	for r := range rounds {
		e.shmInitCode(base, l, uint64(r))
		var (
			outstanding atomic.Int64 // tokens held now
			acquired    atomic.Int64 // tokens taken this round
			returned    atomic.Bool  // Deinitialize has returned
			late        atomic.Int64 // tokens acquired after it returned
			wg          sync.WaitGroup
		)
		for range workers {
			wg.Go(func() {
				for {
					pin, err := e.sm.Pin(base)
					if err != nil {
						if !errors.Is(err, ErrUnpinnable) {
							t.Errorf("pin: %v", err)
						}
						return
					}
					tok, ok := pin.Acquire()
					if !ok {
						return
					}
					outstanding.Add(1)
					acquired.Add(1)
					if returned.Load() {
						late.Add(1)
					}
					// A Go call into the code: it must still be there. The
					// yield keeps calls in flight when Deinitialize starts.
					if mem(base, 1)[0] != mc.record[0] {
						t.Error("code changed under a call")
					}
					runtime.Gosched()
					outstanding.Add(-1) // before the release Deinitialize waits for
					tok.Release()
				}
			})
		}
		// Deinitialize while calls are surely in flight.
		for acquired.Load() < 4*workers {
			time.Sleep(100 * time.Microsecond)
		}
		err := e.sm.Deinitialize([]sps.Addr{base})
		returned.Store(true)
		n := outstanding.Load()
		wg.Wait()
		require.NoError(t, err)
		require.Zero(t, n, "round %d: tokens outstanding when Deinitialize returned", r)
		require.Zero(t, late.Load(), "round %d: tokens acquired after Deinitialize returned", r)
	}
	want := make([]uint64, rounds)
	for i := range want {
		want[i] = uint64(i)
	}
	assert.Equal(t, want, l.entries(), "each round's dealloc ran once, in order")
}
