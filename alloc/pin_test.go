//go:build cgo && (amd64 || arm64)

package alloc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt/keepalive"
	"github.com/orcgo/orcrt/slab"
	"github.com/orcgo/orcrt/sps"
)

// callInFlight makes an env with cfg and code whose dealloc action
// records 1 in l, pins the code's region and holds a token of the pin, as
// a Go call into the code would.
func callInFlight(t *testing.T, cfg Config) (e *env, l *cLog, base sps.Addr, tok keepalive.Token) {
	e = newEnv(t, cfg)
	l = newLog(t, 4)
	base = e.recordingCode(l)
	pin, err := e.mm.Pin(base)
	require.NoError(t, err)
	tok, ok := pin.Acquire()
	require.True(t, ok)
	return e, l, base, tok
}

func TestPinDelaysRelease(t *testing.T) {
	e := newEnv(t, Config{})
	l := newLog(t, 4)
	base := e.recordingCode(l)
	_, err := e.mm.Pin(base - 1)
	assert.ErrorIs(t, err, ErrNotAllocated)
	_, err = e.mm.Pin(base + 0x1000)
	assert.ErrorIs(t, err, ErrNotAllocated, "reserved, not initialized")

	pin, err := e.mm.Pin(base + 8)
	require.NoError(t, err)
	again, err := e.mm.Pin(base)
	require.NoError(t, err)
	assert.Same(t, pin, again, "one pin per region")
	tok, ok := pin.Acquire()
	require.True(t, ok)

	released := make(chan error, 1)
	go func() { released <- e.mm.Release([]sps.Addr{base}) }()
	require.Eventually(t, pin.Closed, time.Second, time.Millisecond)
	_, ok = pin.Acquire()
	assert.False(t, ok, "no new call once the release has begun")
	_, err = e.mm.Pin(base)
	assert.Error(t, err)
	select {
	case err := <-released:
		t.Fatalf("release returned under a running call: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	assert.NotZero(t, protAt(t, base)&slab.ProtExec, "code stays mapped while a call runs")
	assert.Empty(t, l.entries(), "dealloc actions wait for the call")
	tok.Release()
	require.NoError(t, <-released)
	assert.Equal(t, []uint64{1}, l.entries())
	assert.Zero(t, protAt(t, base)&slab.ProtExec)
}

func TestPinWaitTimesOut(t *testing.T) {
	e, l, base, tok := callInFlight(t, Config{PinWait: 20 * time.Millisecond})
	e.allowErrs = true

	err := e.mm.Release([]sps.Addr{base})
	var pe *PinnedError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "release", pe.Op)
	assert.Contains(t, err.Error(), "still running after 20ms")
	assert.NotZero(t, protAt(t, base)&slab.ProtExec, "never unmapped under a running call")
	assert.Empty(t, l.entries())

	tok.Release()
	require.Eventually(t, func() bool { return len(l.entries()) == 1 }, 5*time.Second, time.Millisecond)
	e.mm.later.Wait()
	assert.Zero(t, protAt(t, base)&slab.ProtExec, "unmapped once the call returned")
}

func TestPinDelaysDeinitialize(t *testing.T) {
	e, l, base, tok := callInFlight(t, Config{PinWait: 20 * time.Millisecond})
	e.allowErrs = true
	var pe *PinnedError
	require.ErrorAs(t, e.mm.Deinitialize([]sps.Addr{base}), &pe)
	assert.Equal(t, "deinitialize", pe.Op)
	assert.Empty(t, l.entries())
	tok.Release()
	e.mm.later.Wait()
	assert.Equal(t, []uint64{1}, l.entries(), "the dealloc action runs once the call returned")
	require.NoError(t, e.mm.Release([]sps.Addr{base}))
	assert.Equal(t, []uint64{1}, l.entries(), "and only once")
}

func TestPinDelaysShutdown(t *testing.T) {
	e, l, base, tok := callInFlight(t, Config{PinWait: -1})
	go e.s.Shutdown(nil) // OnShutdown runs on the caller, and waits
	select {
	case <-e.s.Done():
		t.Fatal("shutdown finished under a running call")
	case <-time.After(50 * time.Millisecond):
	}
	assert.NotZero(t, protAt(t, base)&slab.ProtExec)
	tok.Release()
	<-e.s.Done()
	assert.Equal(t, []uint64{1}, l.entries())
}
