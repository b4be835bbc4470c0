//go:build cgo && (amd64 || arm64)

package alloc

import (
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/sps"
)

// The TestAllocAction_* tests mirror orc-rt's AllocActionTest
// (orc-rt/unittests) with real machine-code actions in JIT'd memory.

func TestAllocAction_RunBasicAction(t *testing.T) {
	e, c := newCodeEnv(t)
	ctr := e.rwBlock(8)
	r := Runner{Session: e.s}
	require.NoError(t, r.Run(c.addTo(ctr, 1)))
	assert.Equal(t, uint64(1), u64At(ctr))
	require.NoError(t, r.Run(none), "a null action succeeds without running")
}

func TestAllocAction_RunFinalizationActionsComplete(t *testing.T) {
	e, c := newCodeEnv(t)
	ctr := e.rwBlock(8)
	r := Runner{Session: e.s}
	pairs := []sps.ActionPair{
		pair(c.addTo(ctr, 1), c.addTo(ctr, ^uint64(0))),
		pair(c.addTo(ctr, 1), c.addTo(ctr, ^uint64(0))),
	}
	deallocs, err := r.RunFinalizeActions(pairs, nil)
	require.NoError(t, err)
	assert.Equal(t, uint64(2), u64At(ctr))
	require.Len(t, deallocs, 2)
	require.NoError(t, r.RunDeallocActions(deallocs, nil))
	assert.Equal(t, uint64(0), u64At(ctr))
}

func TestAllocAction_RunFinalizeActionsFail(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 16)
	r := Runner{Session: e.s}
	pairs := []sps.ActionPair{
		pair(c.rec(l, 1), c.rec(l, 11)),
		pair(c.fail("test failure"), c.rec(l, 12)),
		pair(c.rec(l, 3), c.rec(l, 13)),
	}
	deallocs, err := r.RunFinalizeActions(pairs, func(err error) { t.Errorf("unexpected cleanup error %v", err) })
	require.EqualError(t, err, "test failure")
	assert.Nil(t, deallocs)
	// The first pair's dealloc ran as cleanup; the failing pair's dealloc
	// and the later pair did not run.
	assert.Equal(t, []uint64{1, 11}, l.entries())
	var ae *ActionError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, c.retbuf, ae.Fn)
	var re *sps.RemoteError
	assert.ErrorAs(t, err, &re)
}

func TestAllocAction_RunFinalizeActionsNullFinalize(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 4)
	deallocs, err := Runner{Session: e.s}.RunFinalizeActions([]sps.ActionPair{
		pair(none, c.rec(l, 1)),
		pair(c.rec(l, 2), c.rec(l, 3)),
	}, nil)
	require.NoError(t, err)
	assert.Len(t, deallocs, 2, "a null finalize still contributes its dealloc")
	assert.Equal(t, []uint64{2}, l.entries())
}

func TestAllocAction_RunFinalizeActionsNullDealloc(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 4)
	deallocs, err := Runner{Session: e.s}.RunFinalizeActions([]sps.ActionPair{
		pair(c.rec(l, 1), none),
		pair(c.rec(l, 2), c.rec(l, 3)),
	}, nil)
	require.NoError(t, err)
	require.Len(t, deallocs, 1, "null deallocs are filtered out")
	assert.Equal(t, c.record, deallocs[0].Fn)
}

func TestAllocAction_RunDeallocActionsReportsError(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 4)
	var reported []string
	err := Runner{Session: e.s}.RunDeallocActions([]sps.WrapperCall{c.rec(l, 1), c.fail("failed")}, collect(&reported))
	assert.EqualError(t, err, "failed")
	assert.Equal(t, []string{"failed"}, reported)
	assert.Equal(t, []uint64{1}, l.entries(), "the remaining action still ran")
}

func TestAllocAction_RunDeallocActionsReportsAllErrors(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 4)
	var reported []string
	err := Runner{Session: e.s}.RunDeallocActions([]sps.WrapperCall{c.fail("failed"), c.rec(l, 7), c.fail("failed_2")}, collect(&reported))
	assert.Equal(t, []string{"failed_2", "failed"}, reported, "reported in reverse order")
	assert.EqualError(t, err, "failed_2\nfailed")
	assert.Equal(t, []uint64{7}, l.entries())
}

func TestAllocAction_RunFinalizeActionsFailReportsCleanupErrors(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 8)
	var reported []string
	_, err := Runner{Session: e.s}.RunFinalizeActions([]sps.ActionPair{
		pair(c.rec(l, 1), c.rec(l, 11)),
		pair(c.rec(l, 2), c.fail("cleanup failed")),
		pair(c.fail("finalize failed"), c.rec(l, 13)),
	}, collect(&reported))
	require.EqualError(t, err, "finalize failed", "the finalize error is returned")
	assert.Equal(t, []string{"cleanup failed"}, reported, "the cleanup failure is reported out of band")
	assert.Equal(t, []uint64{1, 2, 11}, l.entries(), "cleanup continued past its failure")
}

// TestActionResults covers every result state of a native action
// (docs/protocol.md §6.3) and of a Go wrapper action.
func TestActionResults(t *testing.T) {
	e, c := newCodeEnv(t)
	goAction := func(r rt.WrapperResult) sps.Addr {
		return e.s.RegisterWrapper(func(_ *rt.Session, _ []byte, ret rt.ReturnFunc) { ret(r) })
	}
	cases := []struct {
		name string
		call sps.WrapperCall
		want string // "" = success
	}{
		{"native inline success", c.nop(), ""},
		{"native SPSError failure", c.fail("boom"), "boom"},
		{"native out-of-band error", c.oob(msgDeserializeArgs), msgDeserializeArgs},
		{"native empty result", c.emptyRet(), MsgDeserializeActionResult},
		{"native truncated SPSError", c.ret(append(sps.AppendU64([]byte{1}, 32), "short"...), false), MsgDeserializeActionResult},
		{"go truncated SPSError (inline size)", sps.WrapperCall{Fn: goAction(rt.CopyResult([]byte{1, 5, 0}))}, MsgDeserializeActionResult},
		{"native success with trailing bytes (malloc'd)", c.ret(append([]byte{0}, make([]byte, 40)...), false), ""},
		{"native long failure message", c.fail(string(make([]byte, 4000))), string(make([]byte, 4000))},
		{"go success", sps.WrapperCall{Fn: goAction(rt.CopyResult([]byte{0}))}, ""},
		{"go SPSError failure", sps.WrapperCall{Fn: goAction(rt.CopyResult(errPayload(1, "go boom")))}, "go boom"},
		{"go out-of-band error", sps.WrapperCall{Fn: goAction(rt.OutOfBandResult("go oob"))}, "go oob"},
		{"go empty result", sps.WrapperCall{Fn: goAction(rt.EmptyResult())}, MsgDeserializeActionResult},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Runner{Session: e.s}.Run(tc.call)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.want)
			var ae *ActionError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.call.Fn, ae.Fn)
		})
	}
	t.Run("native OOB cause", func(t *testing.T) {
		err := Runner{Session: e.s}.Run(c.oob("x"))
		var oob *rt.OutOfBandError
		assert.ErrorAs(t, err, &oob)
	})
}

// TestGoActionLateReturn: a Go wrapper action may return later, from
// another goroutine; the run waits for it, and all actions of one run
// execute on one OS thread (runtime.LockOSThread held for the run) even
// though the goroutine blocks in between.
func TestGoActionLateReturn(t *testing.T) {
	e, c := newCodeEnv(t)
	var mu sync.Mutex
	var tids []int
	var order []string
	late := e.s.RegisterWrapper(func(_ *rt.Session, args []byte, ret rt.ReturnFunc) {
		mu.Lock()
		tids = append(tids, syscall.Gettid())
		order = append(order, string(args))
		mu.Unlock()
		go func() {
			time.Sleep(2 * time.Millisecond)
			runtime.Gosched()
			ret(rt.CopyResult([]byte{0}))
		}()
	})
	pairs := make([]sps.ActionPair, 0, 8)
	for i := range 4 {
		pairs = append(pairs, pair(sps.WrapperCall{Fn: late, Args: []byte{byte('a' + i)}}, c.nop()))
	}
	for range 3 {
		mu.Lock()
		tids = tids[:0]
		mu.Unlock()
		_, err := Runner{Session: e.s}.RunFinalizeActions(pairs, nil)
		require.NoError(t, err)
		mu.Lock()
		for _, tid := range tids {
			assert.Equal(t, tids[0], tid, "every action of a run runs on one OS thread")
		}
		mu.Unlock()
	}
	assert.Equal(t, "abcdabcdabcd", func() string {
		s := ""
		for _, o := range order {
			s += o
		}
		return s
	}())
}

// TestGoActionPanics: a panicking Go wrapper action fails the action
// instead of unwinding through the run.
func TestGoActionPanics(t *testing.T) {
	e := newEnv(t, Config{})
	p := e.s.RegisterWrapper(func(*rt.Session, []byte, rt.ReturnFunc) { panic("kaboom") })
	err := Runner{Session: e.s}.Run(sps.WrapperCall{Fn: p})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "kaboom")
}

// TestRunnerKeepaliveDenied: once shutdown has closed the Session's
// keepalive group no action runs, and the error names the denial.
func TestRunnerKeepaliveDenied(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 4)
	tok, err := e.s.AcquireKeepalive()
	require.NoError(t, err)
	e.s.Shutdown(nil) // detaches and closes the group; waits (without blocking) for tok
	r := Runner{Session: e.s}
	err = r.Run(c.rec(l, 1))
	require.ErrorIs(t, err, rt.ErrKeepaliveDenied)
	assert.Contains(t, err.Error(), "not run")
	_, err = r.RunFinalizeActions([]sps.ActionPair{pair(c.rec(l, 2), c.rec(l, 3))}, nil)
	require.ErrorIs(t, err, rt.ErrKeepaliveDenied)
	var reported []error
	err = r.RunDeallocActions([]sps.WrapperCall{c.rec(l, 4), none, c.rec(l, 5)}, func(err error) { reported = append(reported, err) })
	require.ErrorIs(t, err, rt.ErrKeepaliveDenied)
	assert.Len(t, reported, 2, "one failure per non-null action")
	_, err = e.mm.Initialize(&sps.FinalizeRequest{Segments: []sps.SegFinalizeRequest{seg(sps.Read, 0, 0, nil)}})
	require.ErrorIs(t, err, rt.ErrKeepaliveDenied)
	require.ErrorIs(t, e.mm.Release(nil), rt.ErrKeepaliveDenied)
	require.ErrorIs(t, e.mm.Deinitialize(nil), rt.ErrKeepaliveDenied)
	assert.Empty(t, l.entries(), "nothing ran")
	// NoKeepalive (for OnShutdown hooks) still runs.
	require.NoError(t, Runner{Session: e.s, NoKeepalive: true}.Run(c.rec(l, 9)))
	assert.Equal(t, []uint64{9}, l.entries())
	tok.Release()
	e.s.Wait()
}

// TestRunnerAllocs pins the claim that running native actions does not
// allocate (result buffers are pooled; inline results need no copy).
func TestRunnerAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	e, c := newCodeEnv(t)
	calls := []sps.WrapperCall{c.nop(), c.nop(), c.nop(), c.nop()}
	r := Runner{Session: e.s}
	if n := testing.AllocsPerRun(200, func() {
		if err := r.RunDeallocActions(calls, nil); err != nil {
			panic(err)
		}
	}); n != 0 {
		t.Errorf("RunDeallocActions of 4 native actions: %v allocations, want 0", n)
	}
	if n := testing.AllocsPerRun(200, func() {
		if err := r.Run(calls[0]); err != nil {
			panic(err)
		}
	}); n != 0 {
		t.Errorf("Run of a native action: %v allocations, want 0", n)
	}
}

// TestRunnerWithoutSession: the zero Runner calls natively and takes no
// token; an address it cannot resolve is still called natively, so only
// real code addresses may be passed.
func TestRunnerWithoutSession(t *testing.T) {
	e, c := newCodeEnv(t)
	ctr := e.rwBlock(8)
	require.NoError(t, Runner{}.Run(c.addTo(ctr, 5)))
	assert.Equal(t, uint64(5), u64At(ctr))
	assert.EqualError(t, Runner{}.Run(c.fail("x")), "x")
}

// The TestSPSAllocAction_* tests mirror orc-rt's SPSAllocActionTest
// (orc-rt/unittests) for actions that are typed Go wrapper functions (how
// the executor registers its EH-frame and JITLoaderGDB actions): an SPS
// handler returning an SPSError, run through the Runner.

var rangesEqualSig = sps.Func2[sps.Addr, sps.Addr, error]{Arg1: sps.AddrCodec, Arg2: sps.AddrCodec, Ret: sps.ErrorCodec}

func TestSPSAllocAction(t *testing.T) {
	e := newEnv(t, Config{})
	var got []sps.Addr
	fn := e.s.RegisterWrapper(rt.Handle2(rangesEqualSig, func(_ *rt.Session, x, y sps.Addr) error {
		got = append(got, x, y)
		if x != y {
			return fmt.Errorf("%#x and %#x differ", uint64(x), uint64(y))
		}
		return nil
	}))
	r := Runner{Session: e.s}
	t.Run("RunActionWithErrorSuccessReturn", func(t *testing.T) {
		require.NoError(t, r.Run(sps.WrapperCall{Fn: fn, Args: rangesEqualSig.AppendArgs(nil, 7, 7)}))
		assert.Equal(t, []sps.Addr{7, 7}, got, "SPS-encoded arguments reach the handler")
	})
	t.Run("RunActionWithErrorFailureReturn", func(t *testing.T) {
		assert.EqualError(t, r.Run(sps.WrapperCall{Fn: fn, Args: rangesEqualSig.AppendArgs(nil, 1, 2)}), "0x1 and 0x2 differ")
	})
	t.Run("RunActionWithUndecodableArgs", func(t *testing.T) {
		err := r.Run(sps.WrapperCall{Fn: fn, Args: []byte{1}})
		assert.EqualError(t, err, msgDeserializeArgs, "the handler's out-of-band error is the failure")
		var oob *rt.OutOfBandError
		assert.ErrorAs(t, err, &oob)
	})
}

// TestGoActionArgsOwnership: initialize is registered with rt.BorrowArgs,
// so the action arguments it decodes are views into a buffer the CA will
// recycle. A Go wrapper run as an action gets a copy when it owns its
// arguments (it may keep them), and the view itself when it only borrows
// them.
func TestGoActionArgsOwnership(t *testing.T) {
	e := newEnv(t, Config{})
	var owned, borrowed []byte
	owning := e.s.RegisterWrapper(func(_ *rt.Session, a []byte, ret rt.ReturnFunc) {
		owned = a
		ret(rt.ResultBytes([]byte{0}))
	})
	borrowing := e.s.RegisterWrapper(func(_ *rt.Session, a []byte, ret rt.ReturnFunc) {
		borrowed = a
		ret(rt.ResultBytes([]byte{0}))
	}, rt.BorrowArgs)
	buf := []byte("action arguments")
	r := Runner{Session: e.s}
	require.NoError(t, r.Run(sps.WrapperCall{Fn: owning, Args: buf}))
	require.NoError(t, r.Run(sps.WrapperCall{Fn: borrowing, Args: buf}))
	assert.Same(t, &buf[0], &borrowed[0], "a borrowing action sees the view")
	assert.NotSame(t, &buf[0], &owned[0], "an owning action gets a copy")
	copy(buf, "XXXXXXXXXXXXXXXX") // the CA reuses its buffer
	assert.Equal(t, "action arguments", string(owned))
}

// TestBootstrapWrappersBorrow: the memory manager's and the shared-memory
// mapper's wrappers are registered as borrowing their arguments.
func TestBootstrapWrappersBorrow(t *testing.T) {
	e := newEnv(t, Config{})
	for _, name := range []string{
		MemoryManagerReserveName, MemoryManagerInitializeName, MemoryManagerDeinitializeName, MemoryManagerReleaseName,
		SharedMapperReserveName, SharedMapperInitializeName, SharedMapperDeinitializeName, SharedMapperReleaseName,
	} {
		a, ok := e.syms.Lookup(name)
		require.True(t, ok, name)
		assert.True(t, e.s.WrapperBorrowsArgs(a), name)
	}
}
