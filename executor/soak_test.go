//go:build cgo

package executor_test

import (
	"context"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/internal/cbuild"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/rt/svctest"
	"github.com/orcgo/orcrt/sps"
)

// soakDuration is how long TestSoak runs: ORCRT_SOAK (a Go duration, e.g.
// "10m" for a long run), else 8 s (under -race in CI).
func soakDuration(t *testing.T) time.Duration {
	if v := os.Getenv("ORCRT_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err, "ORCRT_SOAK")
		return d
	}
	if testing.Short() {
		return 2 * time.Second
	}
	return 8 * time.Second
}

// soakCounts are what one soak run did (atomics: many goroutines count).
type soakCounts struct {
	rounds, calls, callsFailed, dispatches, dispatchesFailed atomic.Int64
	admitted, denied, actions                                atomic.Int64
	ends                                                     [5]atomic.Int64
}

var soakEnds = [5]string{"eof", "killed", "hangup", "ctx-cancel", "close"}

// TestSoak: many concurrent controller calls (memory reads, writes,
// reserve/initialize/release with native allocation actions), JIT'd calls
// that jit-dispatch back to the controller, and keepalive acquisitions by
// the host, while the session is ended at a random moment in a random way
// (end of input, the controller killed, Hangup, Serve's context
// cancelled, Executor.Close). Every round: every call completes (result
// or "disconnected"), Serve returns within exitBound, a keepalive is never
// admitted once denied, and nothing is left running (goleak at the end).
// Bounded in time (soakDuration) and rounds; run it under -race.
func TestSoak(t *testing.T) {
	so := cbuild.SharedObject(t, "orcrtsoak", svctest.JITLibSource)
	d := soakDuration(t)
	var n soakCounts
	deadline := time.Now().Add(d)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 8))
	for round := 0; time.Now().Before(deadline) && round < 100000; round++ {
		soakRound(t, so, rng.Uint64(), &n)
		if t.Failed() {
			t.Fatalf("round %d failed", round)
		}
	}
	t.Logf("%v: %d rounds; controller calls %d answered / %d failed; jit-dispatches %d answered / %d failed; "+
		"allocation actions run %d; keepalives %d admitted / %d denied; ended by eof %d, killed %d, hangup %d, ctx-cancel %d, close %d",
		d, n.rounds.Load(), n.calls.Load(), n.callsFailed.Load(), n.dispatches.Load(), n.dispatchesFailed.Load(),
		n.actions.Load(), n.admitted.Load(), n.denied.Load(),
		n.ends[0].Load(), n.ends[1].Load(), n.ends[2].Load(), n.ends[3].Load(), n.ends[4].Load())
	if n.rounds.Load() > 10 {
		require.Positive(t, n.callsFailed.Load()+n.dispatchesFailed.Load(), "shutdown never raced a call")
		require.Positive(t, n.denied.Load(), "shutdown never raced a keepalive")
	}
}

func soakRound(t *testing.T, so string, seed uint64, n *soakCounts) {
	rng := rand.New(rand.NewPCG(seed, 1))
	execEnd, ctlEnd, err := wiretest.Connect(wiretest.Pipe)
	require.NoError(t, err)
	ex, err := executor.New(executor.Options{})
	require.NoError(t, err)
	sctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serveErr := make(chan error, 1)
	go func() { serveErr <- ex.Serve(sctx, execEnd) }()
	ctl, err := wiretest.New(ctlEnd, nil)
	require.NoError(t, err)
	s := &session{Controller: ctl, kind: "inprocess"}
	c, cancelCalls := context.WithTimeout(context.Background(), callTimeout)
	defer cancelCalls()

	// Set-up that must succeed: the library, a reservation with a data
	// page, the tags the JIT'd code dispatches to.
	h, err := wiretest.Call3(c, ctl, ctl.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_open_wrapper"), sps.DylibManagerOpen,
		ctl.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_Instance"), so, 0)
	require.NoError(t, err)
	require.NoError(t, h.Err)
	res, err := wiretest.Call2(c, ctl, ctl.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_resolve_wrapper"), sps.DylibManagerResolve,
		h.Value, []sps.LookupElement{{Name: []byte("orcrt_test_dispatch"), Required: true}, {Name: []byte("orcrt_test_action"), Required: true}})
	require.NoError(t, err)
	require.NoError(t, res.Err)
	dispatchFn, actionFn := res.Value[0].Value.Addr, res.Value[1].Value.Addr
	mm := ctl.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_Instance")
	r, err := wiretest.Call2(c, ctl, ctl.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper"), sps.MemoryManagerReserve, mm, 0x10000)
	require.NoError(t, err)
	require.NoError(t, r.Err)
	data := r.Value
	const tag = 0x5a5a0500
	ctl.HandleFunc(tag, func(args []byte) []byte { return args })

	var wg sync.WaitGroup
	var ending atomic.Bool
	// failed reports a call that failed: with ErrDisconnected, or after
	// the test began to end the session (a send on a connection it closed
	// itself), as expected; anything else fails the test.
	failed := func(err error, what string) bool {
		if err == nil {
			return false
		}
		if !errors.Is(err, wiretest.ErrDisconnected) && !ending.Load() {
			t.Errorf("%s: %v", what, err)
		}
		return true
	}
	// Controller calls: memory traffic.
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				// Each writer has its own slots (2048 in the reservation's
				// first 16 KiB), so a read sees its own last write.
				const slots = 2048 / 3
				a := data + sps.Addr(8*(g*slots+i%slots))
				_, err := ctl.Call(c, ctl.MustSymbol("__llvm_orc_bootstrap_mem_write_uint64s_wrapper"),
					sps.WriteUInt64s.AppendArgs(nil, []sps.UIntWrite[uint64]{{Addr: a, Value: uint64(i)}}))
				if failed(err, "mem write") {
					n.callsFailed.Add(1)
					return
				}
				b, err := ctl.Call(c, ctl.MustSymbol("__llvm_orc_bootstrap_mem_read_uint64s_wrapper"), sps.ReadUInt64s.AppendArgs(nil, []sps.Addr{a}))
				if failed(err, "mem read") {
					n.callsFailed.Add(1)
					return
				}
				if len(b) == 16 && binary.LittleEndian.Uint64(b[8:]) != uint64(i) {
					t.Errorf("read back %x at %#x, wrote %d", b, uint64(a), i)
				}
				n.calls.Add(2)
			}
		}()
	}
	// Controller calls: reserve / initialize (native actions) / release.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			r, err := wiretest.Call2(c, ctl, ctl.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper"), sps.MemoryManagerReserve, mm, 0x2000)
			if failed(err, "reserve") {
				n.callsFailed.Add(1)
				return
			}
			if r.Err != nil {
				t.Errorf("reserve: %v", r.Err)
				return
			}
			act := sps.WrapperCall{Fn: actionFn, Args: []byte{0}}
			k, err := wiretest.Call2(c, ctl, ctl.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_initialize_wrapper"), sps.MemoryManagerInitialize, mm,
				sps.FinalizeRequest{Segments: []sps.SegFinalizeRequest{{Group: sps.Read | sps.Write, Addr: r.Value, Size: 0x2000}},
					Actions: []sps.ActionPair{{Finalize: act, Dealloc: act}}})
			if failed(err, "initialize") {
				n.callsFailed.Add(1)
				return
			}
			if k.Err != nil {
				t.Errorf("initialize: %v", k.Err)
				return
			}
			e, err := wiretest.Call2(c, ctl, ctl.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_release_wrapper"), sps.MemoryManagerRelease, mm, []sps.Addr{r.Value})
			if failed(err, "release") {
				n.callsFailed.Add(1)
				return
			}
			if e != nil {
				t.Errorf("release: %v", e)
				return
			}
			n.calls.Add(3)
			n.actions.Add(2)
		}
	}()
	// JIT'd calls that jit-dispatch to the controller.
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				payload := binary.LittleEndian.AppendUint64(nil, uint64(i))
				b, err := ctl.Call(c, dispatchFn, dispatchArgs(s, tag, payload))
				if failed(err, "dispatching call") {
					n.dispatchesFailed.Add(1)
					return
				}
				if len(b) == 0 {
					// The dispatch itself failed ("disconnecting"): the
					// executor is ending; its result may still arrive.
					n.dispatchesFailed.Add(1)
					continue
				}
				if string(b) != string(payload) {
					t.Errorf("dispatch returned %x, want %x", b, payload)
				}
				n.dispatches.Add(1)
			}
		}()
	}
	// The host takes keepalives: once one is denied, none is admitted.
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			denied := 0
			for denied < 100 { // after a denial, a hundred more must be denied
				ok := ex.Session().CallWithKeepalive(func() { time.Sleep(10 * time.Microsecond) })
				switch {
				case ok && denied > 0:
					t.Error("keepalive admitted after one was denied")
					return
				case ok:
					n.admitted.Add(1)
				default:
					n.denied.Add(1)
					denied++
				}
			}
		}()
	}

	time.Sleep(time.Duration(rng.Int64N(int64(30 * time.Millisecond))))
	end := rng.IntN(len(soakEnds))
	n.ends[end].Add(1)
	ending.Store(true)
	start := time.Now()
	switch soakEnds[end] {
	case "eof":
		_ = ctl.CloseWrite()
	case "killed":
		_ = ctl.Close()
	case "hangup":
		_ = ctl.Hangup(nil)
	case "ctx-cancel":
		cancel()
	case "close":
		go ex.Close()
	}
	select {
	case err := <-serveErr:
		// A killed controller may be noticed by a failed write first.
		var ioe *simpleremote.IOError
		if err != nil && !(soakEnds[end] == "killed" && errors.As(err, &ioe)) {
			t.Errorf("Serve (ended by %s): %v", soakEnds[end], err)
		}
	case <-time.After(exitBound):
		t.Fatalf("Serve did not return within %v of the end (%s)", exitBound, soakEnds[end])
	}
	_ = ctl.Close()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(exitBound):
		t.Fatalf("calls or keepalive users still running %v after Serve returned", exitBound)
	}
	ex.Close()
	if d := time.Since(start); d > exitBound {
		t.Errorf("round took %v to end", d)
	}
	n.rounds.Add(1)
}
