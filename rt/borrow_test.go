package rt

import (
	"bytes"
	"encoding/binary"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/sps"
)

// releaseLog records the buffers a CA gets back through ReleaseFunc.
type releaseLog struct {
	mu   sync.Mutex
	bufs [][]byte
	hook func([]byte) // runs inside release, under no lock
}

func (r *releaseLog) release(b []byte) {
	if r.hook != nil {
		r.hook(b)
	}
	r.mu.Lock()
	r.bufs = append(r.bufs, b)
	r.mu.Unlock()
}

func (r *releaseLog) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.bufs)
}

func TestBorrowedArgsReleasedAfterReturnAndRet(t *testing.T) {
	for _, tc := range []struct {
		name    string
		async   bool // ret after the function returned, from another goroutine
		unknown bool // the target is the unknown-target handler
	}{
		{"sync", false, false},
		{"async", true, false},
		{"unknown-sync", false, true},
		{"unknown-async", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
			defer s.Close()
			ca := attachMock(t, s)
			var returned, retCalled atomic.Bool
			var releases releaseLog
			args := []byte("borrowed arguments")
			releases.hook = func(b []byte) {
				assert.True(t, returned.Load(), "released before the function returned")
				assert.True(t, retCalled.Load(), "released before ret")
				_, sent := ca.result(7)
				assert.True(t, sent, "released before the result was sent")
				assert.Same(t, &args[0], &b[0], "release must get the lent buffer")
			}
			retDone := make(chan struct{})
			body := func(a []byte, ret ReturnFunc) {
				assert.Equal(t, "borrowed arguments", string(a))
				finish := func() {
					defer close(retDone)
					retCalled.Store(true)
					ret(CopyResult(a)) // a copy: the result must not alias args
				}
				if tc.async {
					go func() {
						time.Sleep(10 * time.Millisecond)
						finish()
					}()
				} else {
					finish()
				}
				assert.Zero(t, releases.count(), "released while the function is running")
				returned.Store(true)
			}
			target := sps.Addr(0x1234)
			if tc.unknown {
				s.SetUnknownTargetHandler(func(_ *Session, _ sps.Addr, a []byte, ret ReturnFunc) { body(a, ret) }, BorrowArgs)
			} else {
				target = s.RegisterWrapper(func(_ *Session, a []byte, ret ReturnFunc) { body(a, ret) }, BorrowArgs)
				assert.True(t, s.WrapperBorrowsArgs(target))
			}
			ca.h.HandleWrapperCallReleasing(target, args, 7, releases.release)
			<-retDone
			require.Eventually(t, func() bool { return releases.count() == 1 }, 5*time.Second, time.Millisecond)
			r, ok := ca.result(7)
			require.True(t, ok)
			assert.Equal(t, "borrowed arguments", string(r.Bytes()))
			time.Sleep(5 * time.Millisecond)
			assert.Equal(t, 1, releases.count(), "released more than once")
		})
	}
}

func TestOwningWrapperArgsNeverReleased(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	defer s.Close()
	ca := attachMock(t, s)
	var kept [][]byte
	fn := s.RegisterWrapper(func(_ *Session, a []byte, ret ReturnFunc) {
		kept = append(kept, a) // allowed: it owns a
		ret(EmptyResult())
	})
	assert.False(t, s.WrapperBorrowsArgs(fn))
	assert.False(t, s.WrapperBorrowsArgs(0x999), "nothing registered there")
	// An unknown-target handler installed without BorrowArgs owns too.
	s.SetUnknownTargetHandler(func(_ *Session, _ sps.Addr, a []byte, ret ReturnFunc) {
		kept = append(kept, a)
		ret(EmptyResult())
	})
	var releases releaseLog
	for i := range 10 {
		target := fn
		if i%2 == 1 {
			target = 0x999
		}
		ca.h.HandleWrapperCallReleasing(target, []byte{byte(i)}, uint64(i), releases.release)
	}
	assert.Zero(t, releases.count())
	require.Len(t, kept, 10)
	for i, a := range kept {
		assert.Equal(t, []byte{byte(i)}, a)
	}
}

func TestDefaultUnknownTargetBorrows(t *testing.T) {
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	defer s.Close()
	ca := attachMock(t, s)
	var releases releaseLog
	ca.h.HandleWrapperCallReleasing(0x4242, []byte{1, 2, 3}, 1, releases.release)
	assert.Equal(t, 1, releases.count())
	r, ok := ca.result(1)
	require.True(t, ok)
	assert.Contains(t, oobMsg(r), "no wrapper function registered at 0x4242")
}

func TestReleaseOfCallsNotRun(t *testing.T) {
	t.Run("dispatcher-drop", func(t *testing.T) {
		q := NewQueueingRunner()
		s := NewSession(mockProcessInfo(), q, noErrors(t))
		ca := attachMock(t, s)
		ran := false
		fn := s.RegisterWrapper(func(_ *Session, _ []byte, ret ReturnFunc) { ran = true; ret(EmptyResult()) })
		var releases releaseLog
		owning := s.RegisterWrapper(func(_ *Session, _ []byte, ret ReturnFunc) { ran = true; ret(EmptyResult()) })
		ca.h.HandleWrapperCallReleasing(fn, []byte{1}, 1, releases.release)
		ca.h.HandleWrapperCallReleasing(owning, []byte{2}, 2, releases.release)
		assert.Zero(t, releases.count())
		assert.Equal(t, 2, q.DropAll())
		assert.False(t, ran)
		// Nothing saw either buffer: both come back, owning target or not.
		assert.Equal(t, 2, releases.count())
		s.Shutdown(nil)
		q.RunFIFOUntilEmpty()
		s.Wait()
	})
	t.Run("after-disconnect", func(t *testing.T) {
		var log errorLog
		s := NewSession(mockProcessInfo(), InlineRunner{}, log.report)
		ca := attachMock(t, s)
		fn := s.RegisterWrapper(func(_ *Session, _ []byte, _ ReturnFunc) { t.Error("ran after shutdown") }, BorrowArgs)
		s.Shutdown(nil)
		s.Wait()
		var releases releaseLog
		ca.h.HandleWrapperCallReleasing(fn, []byte{1}, 1, releases.release)
		assert.Equal(t, 1, releases.count(), "a dropped call's buffer comes back at once")
		assert.Len(t, log.get(), 1) // the late call is reported
	})
}

// TestBorrowedBufferNeverReusedWhileVisible is the poison test: a CA that
// recycles its buffers — and poisons each one the moment it gets it back —
// lends them to borrowing wrappers that keep reading their arguments on
// other goroutines until they call ret, mixed with owning wrappers that
// keep theirs forever. A buffer given back early shows up as a corrupted
// argument (and, under -race, as a data race with the poisoning writes);
// an owning wrapper's buffer must never come back at all.
func TestBorrowedBufferNeverReusedWhileVisible(t *testing.T) {
	runner := NewGoRunner(8)
	defer runner.Close()
	s := NewSession(mockProcessInfo(), runner, noErrors(t))
	defer s.Close()
	ca := attachMock(t, s)

	const calls = 2000
	const size = 256
	var (
		poolMu sync.Mutex
		pool   [][]byte // recycled buffers
		lent   sync.Map // &buf[0] -> call id, while lent
		bad    atomic.Int32
	)
	get := func() []byte {
		poolMu.Lock()
		defer poolMu.Unlock()
		if n := len(pool); n > 0 {
			b := pool[n-1]
			pool = pool[:n-1]
			return b
		}
		return make([]byte, size)
	}
	release := func(b []byte) {
		if _, ok := lent.LoadAndDelete(&b[0]); !ok {
			bad.Add(1) // released twice, or a buffer never lent
		}
		for i := range b {
			b[i] = 0xEE // poison
		}
		poolMu.Lock()
		pool = append(pool, b)
		poolMu.Unlock()
	}
	fill := func(b []byte, id uint64) {
		for i := 0; i < len(b); i += 8 {
			binary.LittleEndian.PutUint64(b[i:], id*1000003+uint64(i))
		}
	}
	check := func(b []byte, id uint64) bool {
		want := make([]byte, len(b))
		fill(want, id)
		return bytes.Equal(b, want)
	}

	var wg sync.WaitGroup
	borrow := s.RegisterWrapper(func(_ *Session, a []byte, ret ReturnFunc) {
		id := binary.LittleEndian.Uint64(a) / 1000003
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				if !check(a, id) {
					bad.Add(1)
				}
				time.Sleep(time.Duration(id%3) * 100 * time.Microsecond)
			}
			ret(EmptyResult()) // from here on a is not ours
		}()
		if !check(a, id) {
			bad.Add(1)
		}
	}, BorrowArgs)
	var keptMu sync.Mutex
	kept := map[uint64][]byte{}
	owning := s.RegisterWrapper(func(_ *Session, a []byte, ret ReturnFunc) {
		id := binary.LittleEndian.Uint64(a) / 1000003
		keptMu.Lock()
		kept[id] = a
		keptMu.Unlock()
		ret(EmptyResult())
	})

	for id := uint64(1); id <= calls; id++ {
		b := get()
		fill(b, id)
		target := borrow
		if id%5 == 0 {
			target = owning
		}
		lent.Store(&b[0], id)
		ca.h.HandleWrapperCallReleasing(target, b, id, release)
	}
	require.Eventually(t, func() bool {
		n := 0
		for id := uint64(1); id <= calls; id++ {
			if _, ok := ca.result(id); ok {
				n++
			}
		}
		return n == calls
	}, 30*time.Second, 5*time.Millisecond)
	wg.Wait()
	assert.Zero(t, bad.Load(), "a buffer was recycled while a borrowing wrapper could see it")
	// Every borrowed buffer came back; no owned one did.
	require.Eventually(t, func() bool {
		n := 0
		lent.Range(func(_, _ any) bool { n++; return true })
		return n == calls/5
	}, 5*time.Second, time.Millisecond)
	keptMu.Lock()
	defer keptMu.Unlock()
	require.Len(t, kept, calls/5)
	for id, a := range kept {
		if !check(a, id) {
			t.Fatalf("owning wrapper's buffer of call %d was reused", id)
		}
		if _, ok := lent.Load(&a[0]); !ok {
			t.Fatalf("owning wrapper's buffer of call %d was released", id)
		}
	}
}

// TestBorrowedCallAllocations pins the allocations of an incoming call on
// the Session's side: none for a borrowing wrapper (the call record and
// its ReturnFunc are recycled), one call record and one bound ReturnFunc
// for an owning one, which may keep ret.
func TestBorrowedCallAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops objects at random under the race detector")
	}
	s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
	defer s.Close()
	ca := &nullCA{}
	require.NoError(t, s.Attach(ca, nil))
	borrow := s.RegisterWrapper(func(_ *Session, _ []byte, ret ReturnFunc) { ret(EmptyResult()) }, BorrowArgs)
	owning := s.RegisterWrapper(func(_ *Session, _ []byte, ret ReturnFunc) { ret(EmptyResult()) })
	args := []byte{1, 2, 3}
	release := ReleaseFunc(func([]byte) {})
	for _, tc := range []struct {
		name   string
		target sps.Addr
		max    float64
	}{{"borrowing", borrow, 0}, {"owning", owning, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			n := testing.AllocsPerRun(1000, func() {
				ca.h.HandleWrapperCallReleasing(tc.target, args, 1, release)
			})
			if n > tc.max {
				t.Errorf("%v allocations per call, want at most %v", n, tc.max)
			}
		})
	}
	if ca.results.Load() == 0 {
		t.Fatal("no results delivered")
	}
}

// nullCA counts results and does nothing else.
type nullCA struct {
	h       *SessionHandle
	results atomic.Int64
}

func (c *nullCA) Connect(h *SessionHandle, _ *BootstrapInfo) error { c.h = h; return nil }
func (c *nullCA) Disconnect()                                      { c.h.NotifyDisconnected(nil) }
func (c *nullCA) CallController(_ sps.Addr, _ []byte, p *PendingCall) {
	c.h.FailControllerCallInline(p)
}
func (c *nullCA) SendWrapperResult(uint64, WrapperResult) { c.results.Add(1) }
