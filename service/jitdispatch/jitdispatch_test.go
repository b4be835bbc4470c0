//go:build cgo

package jitdispatch_test

import (
	"encoding/binary"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/svctest"
	"github.com/orcgo/orcrt/service/entry"
	"github.com/orcgo/orcrt/service/jitdispatch"
	"github.com/orcgo/orcrt/sps"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func install(s *rt.Session, syms *rt.SymbolTable) error {
	s.SetUnknownTargetHandler(entry.CallJITWrapper)
	return jitdispatch.Install(s, syms)
}

// dispatchArgs is the argument block of orcrt_test_dispatch(_threads).
func dispatchArgs(h *svctest.Harness, tag uint64, extra []uint64, payload []byte) []byte {
	var b []byte
	b = binary.LittleEndian.AppendUint64(b, uint64(h.Addr(jitdispatch.FnName)))
	b = binary.LittleEndian.AppendUint64(b, uint64(h.Addr(jitdispatch.CtxName)))
	b = binary.LittleEndian.AppendUint64(b, tag)
	for _, e := range extra {
		b = binary.LittleEndian.AppendUint64(b, e)
	}
	return append(b, payload...)
}

func TestSymbols(t *testing.T) {
	h := svctest.New(t, install)
	assert.Equal(t, sps.Addr(native.DispatchFnAddr()), h.Addr(jitdispatch.FnName))
	assert.NotZero(t, h.Addr(jitdispatch.CtxName))
}

func TestDispatchFromJITCode(t *testing.T) {
	h := svctest.New(t, install)
	lib := svctest.JITLib(t)
	dispatch := sps.Addr(lib("orcrt_test_dispatch"))
	const tag = 0x5a5a1000
	var calls atomic.Int32
	h.Ctl.RegisterFunc(tag, func(args []byte) rt.WrapperResult {
		calls.Add(1)
		out := slices.Clone(args)
		slices.Reverse(out)
		return rt.ResultBytes(out)
	})
	for _, n := range []int{0, 3, 8, 9, 1000} {
		payload := make([]byte, n)
		for i := range payload {
			payload[i] = byte(i)
		}
		r := h.Call(dispatch, dispatchArgs(h, tag, nil, payload))
		require.False(t, r.IsOutOfBandError(), "%v", r.Err())
		want := slices.Clone(payload)
		slices.Reverse(want)
		assert.Equal(t, want, append([]byte{}, r.Bytes()...), "n=%d", n)
	}
	assert.Equal(t, int32(5), calls.Load())

	// The controller's out-of-band error reaches JIT'd code as one.
	h.Ctl.RegisterFunc(tag+1, func([]byte) rt.WrapperResult { return rt.OutOfBandResult("no such tag") })
	msg, oob := h.Call(dispatch, dispatchArgs(h, tag+1, nil, nil)).OutOfBandError()
	assert.True(t, oob)
	assert.Equal(t, "no such tag", msg)
}

func TestDispatchFromThreadsJITCodeCreated(t *testing.T) {
	h := svctest.New(t, install)
	lib := svctest.JITLib(t)
	dispatchThreads := sps.Addr(lib("orcrt_test_dispatch_threads"))
	const tag = 0x5a5a2000
	var calls atomic.Int32
	h.Ctl.RegisterFunc(tag, func(args []byte) rt.WrapperResult {
		calls.Add(1)
		return rt.ResultBytes(append([]byte("re:"), args...))
	})
	r := h.Call(dispatchThreads, dispatchArgs(h, tag, []uint64{16}, []byte("hello")))
	require.False(t, r.IsOutOfBandError(), "%v", r.Err())
	assert.Equal(t, "re:hello", string(r.Bytes()))
	assert.Equal(t, int32(16), calls.Load())
}

// TestConcurrentDispatchesAnsweredOutOfOrder blocks several dispatches in
// the controller and answers them in reverse order: each result goes to
// the thread that asked.
func TestConcurrentDispatchesAnsweredOutOfOrder(t *testing.T) {
	h := svctest.New(t, install)
	lib := svctest.JITLib(t)
	dispatch := sps.Addr(lib("orcrt_test_dispatch"))
	const tag, n = 0x5a5a3000, 6
	type pending struct {
		id   uint64
		ctl  *rt.LoopbackController
		call uint64
	}
	arrived := make(chan pending, n)
	h.Ctl.RegisterHandler(tag, func(ctl *rt.LoopbackController, callID uint64, args []byte) {
		arrived <- pending{id: binary.LittleEndian.Uint64(args), ctl: ctl, call: callID}
	})
	var wg sync.WaitGroup
	results := make([]rt.WrapperResult, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = h.Call(dispatch, dispatchArgs(h, tag, nil, binary.LittleEndian.AppendUint64(nil, uint64(i))))
		}()
	}
	var ps []pending
	for range n {
		ps = append(ps, <-arrived)
	}
	for i := len(ps) - 1; i >= 0; i-- {
		p := ps[i]
		p.ctl.ReturnResult(p.call, rt.ResultBytes(binary.LittleEndian.AppendUint64(nil, p.id*100)))
	}
	wg.Wait()
	for i, r := range results {
		require.False(t, r.IsOutOfBandError(), "%v", r.Err())
		assert.Equal(t, uint64(i*100), binary.LittleEndian.Uint64(r.Bytes()))
	}
}

// TestDisconnectFailsWaiters: a dispatch waiting when the controller goes
// away gets "disconnecting"; one made afterwards (from a thread that was
// still running) gets the stock "not available" message.
func TestDisconnectFailsWaiters(t *testing.T) {
	h := svctest.New(t, install)
	lib := svctest.JITLib(t)
	dispatch := lib("orcrt_test_dispatch")
	const tag = 0x5a5a4000
	arrived := make(chan struct{})
	h.Ctl.RegisterHandler(tag, func(*rt.LoopbackController, uint64, []byte) { close(arrived) }) // never answers

	// Call the JIT'd function directly on a goroutine (not as a Session
	// call), as a thread of the JIT'd program would.
	done := make(chan error, 1)
	go func() {
		_, err := native.CallWrapper(dispatch, dispatchArgs(h, tag, nil, []byte{1}), nil)
		done <- err
	}()
	<-arrived
	h.Ctl.Disconnect()
	err := <-done
	var oob *rt.OutOfBandError
	require.ErrorAs(t, err, &oob)
	assert.Equal(t, jitdispatch.MsgDisconnecting, oob.Msg)

	// Detached, not yet shut down: no controller.
	_, err = native.CallWrapper(dispatch, dispatchArgs(h, tag, nil, nil), nil)
	require.ErrorAs(t, err, &oob)
	assert.Equal(t, native.UnavailableMsg, oob.Msg)

	// Shut down: the context is unregistered.
	args := dispatchArgs(h, tag, nil, nil)
	h.Close()
	_, err = native.CallWrapper(dispatch, args, nil)
	require.ErrorAs(t, err, &oob)
	assert.Equal(t, native.UnavailableMsg, oob.Msg)
}

// TestObserver: the Observer sees each dispatch's tag and arguments
// before the controller does, and the controller's result (bytes or
// out-of-band) before JIT'd code; nil continuations are allowed.
func TestObserver(t *testing.T) {
	type seen struct {
		tag    sps.Addr
		args   string
		result string
		oob    bool
	}
	var (
		mu  sync.Mutex
		log []seen
	)
	h := svctest.New(t, func(s *rt.Session, syms *rt.SymbolTable) error {
		s.SetUnknownTargetHandler(entry.CallJITWrapper)
		return jitdispatch.InstallObserved(s, syms, func(tag sps.Addr, args []byte) func(rt.WrapperResult) {
			if string(args) == "unobserved" {
				return nil
			}
			e := seen{tag: tag, args: string(args)} // args are only lent
			return func(r rt.WrapperResult) {
				msg, oob := r.OutOfBandError()
				if !oob {
					msg = string(r.Bytes())
				}
				e.result, e.oob = msg, oob
				mu.Lock()
				log = append(log, e)
				mu.Unlock()
			}
		})
	})
	dispatch := sps.Addr(svctest.JITLib(t)("orcrt_test_dispatch"))
	const tag = 0x5a5a2000
	h.Ctl.RegisterFunc(tag, func(args []byte) rt.WrapperResult { return rt.ResultBytes(append([]byte("re:"), args...)) })
	h.Ctl.RegisterFunc(tag+1, func([]byte) rt.WrapperResult { return rt.OutOfBandResult("refused") })
	for _, c := range []struct {
		tag  uint64
		args string
	}{{tag, "hello"}, {tag, "unobserved"}, {tag + 1, "x"}} {
		h.Call(dispatch, dispatchArgs(h, c.tag, nil, []byte(c.args)))
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []seen{
		{tag: tag, args: "hello", result: "re:hello"},
		{tag: tag + 1, args: "x", result: "refused", oob: true},
	}, log)
}
