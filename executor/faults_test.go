//go:build cgo

package executor_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/crossexec"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/sps"
)

// faultLibSource plays the JIT'd program in the fault tests: wrapper-ABI
// functions that take their time, report on stderr, jit-dispatch, and
// start threads that keep jit-dispatching on their own.
const faultLibSource = `
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct { union { char *ValuePtr; char Value[8]; } Data; size_t Size; } wfb;
typedef wfb (*dispatch_fn_t)(void *, const void *, const char *, size_t);

static wfb empty(void) { wfb r; memset(&r, 0, sizeof r); return r; }
static wfb spserror_success(void) { wfb r = empty(); r.Size = 1; return r; }
static void say(const char *p, size_t n) { fprintf(stderr, "%.*s\n", (int)n, p); fflush(stderr); }

// args = u64 milliseconds, message: sleeps, then prints the message;
// returns SPSError success (usable as a call and as an allocation action).
wfb fault_slow(const char *a, size_t n) {
	uint64_t ms = 0;
	if (n >= 8) memcpy(&ms, a, 8);
	usleep((useconds_t)(ms * 1000));
	if (n > 8) say(a + 8, n - 8);
	return spserror_success();
}

// Prints its arguments; returns SPSError success (an action that shows it ran).
wfb fault_say(const char *a, size_t n) { say(a, n); return spserror_success(); }

// Never returns.
wfb fault_block_forever(const char *a, size_t n) { for (;;) pause(); }

// args = dispatch_fn, ctx, tag, payload: jit-dispatches and reports how it
// ended on stderr.
wfb fault_dispatch_report(const char *a, size_t n) {
	dispatch_fn_t fn; void *ctx; const void *tag;
	if (n < 24) return empty();
	memcpy(&fn, a, 8); memcpy(&ctx, a + 8, 8); memcpy(&tag, a + 16, 8);
	wfb r = fn(ctx, tag, a + 24, n - 24);
	if (r.Size == 0 && r.Data.ValuePtr != NULL) {
		fprintf(stderr, "dispatch failed: %s\n", r.Data.ValuePtr);
		free(r.Data.ValuePtr);
	} else {
		fprintf(stderr, "dispatch returned %zu bytes\n", r.Size);
		if (r.Size > 8) free(r.Data.ValuePtr);
	}
	fflush(stderr);
	return empty();
}

// Spinners: threads of the program's own that jit-dispatch in a loop.
static struct { dispatch_fn_t fn; void *ctx; const void *tag; } spin;
static int spin_stop;
static uint64_t spin_ok, spin_oob;
static pthread_t spin_tids[64];
static uint64_t spin_n;

static void *spinner(void *unused) {
	while (!__atomic_load_n(&spin_stop, __ATOMIC_SEQ_CST)) {
		wfb r = spin.fn(spin.ctx, spin.tag, "x", 1);
		if (r.Size == 0 && r.Data.ValuePtr != NULL) {
			free(r.Data.ValuePtr);
			__atomic_fetch_add(&spin_oob, 1, __ATOMIC_SEQ_CST);
		} else {
			if (r.Size > 8) free(r.Data.ValuePtr);
			__atomic_fetch_add(&spin_ok, 1, __ATOMIC_SEQ_CST);
		}
		usleep(500);
	}
	return NULL;
}

static void spin_report(void) {
	fprintf(stderr, "spinners at exit: ok=%lu failed=%lu\n",
		(unsigned long)__atomic_load_n(&spin_ok, __ATOMIC_SEQ_CST), (unsigned long)__atomic_load_n(&spin_oob, __ATOMIC_SEQ_CST));
	fflush(stderr);
}

// args = dispatch_fn, ctx, tag, u64 nthreads, u64 report-at-exit: starts
// the spinners and returns at once.
wfb fault_start_spinners(const char *a, size_t n) {
	uint64_t k, rep;
	if (n < 40) return empty();
	memcpy(&spin.fn, a, 8); memcpy(&spin.ctx, a + 8, 8); memcpy(&spin.tag, a + 16, 8);
	memcpy(&k, a + 24, 8); memcpy(&rep, a + 32, 8);
	if (k > 64) k = 64;
	if (rep) atexit(spin_report);
	__atomic_store_n(&spin_stop, 0, __ATOMIC_SEQ_CST);
	for (spin_n = 0; spin_n < k; spin_n++) pthread_create(&spin_tids[spin_n], NULL, spinner, NULL);
	return empty();
}

// Returns u64 ok, u64 failed (16 bytes) so far.
wfb fault_spinner_counts(const char *a, size_t n) {
	wfb r = empty();
	r.Data.ValuePtr = malloc(16);
	uint64_t v[2] = { __atomic_load_n(&spin_ok, __ATOMIC_SEQ_CST), __atomic_load_n(&spin_oob, __ATOMIC_SEQ_CST) };
	memcpy(r.Data.ValuePtr, v, 16);
	r.Size = 16;
	return r;
}

// Stops and joins the spinners.
wfb fault_stop_spinners(const char *a, size_t n) {
	__atomic_store_n(&spin_stop, 1, __ATOMIC_SEQ_CST);
	for (uint64_t i = 0; i < spin_n; i++) pthread_join(spin_tids[i], NULL);
	spin_n = 0;
	return empty();
}
`

// faultLib loads faultLibSource into the executor through its dylib
// manager and returns a lookup of its functions.
func faultLib(t testing.TB, s *session) func(name string) sps.Addr {
	t.Helper()
	return loadLib(t, s, "orcrtfault", faultLibSource)
}

func msArgs(ms uint64, msg string) []byte {
	return append(binary.LittleEndian.AppendUint64(nil, ms), msg...)
}

func words(vs ...uint64) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b
}

// killed ends a process session as a SIGKILL of the controller would:
// both of its pipe ends close at once, in the middle of whatever is
// going on. It returns the executor's exit status and stderr, failing if
// the executor took longer than bound to exit.
func killed(t *testing.T, ex *wiretest.Executor, bound time.Duration) (wiretest.ExitStatus, string, time.Duration) {
	t.Helper()
	start := time.Now()
	require.NoError(t, ex.Close())
	st, err := ex.WaitTimeout(bound)
	took := time.Since(start)
	require.NoError(t, err, "the executor did not exit within %v of the controller's death; stderr: %s", bound, ex.Stderr())
	t.Logf("exited %v %v after the controller died", st, took.Round(time.Millisecond))
	// The stock executor may add this line when its reader fails (timing).
	return st, strings.Replace(ex.Stderr(), "SimpleRemoteEPCServer FD-transport disconnected\n", "", 1), took
}

func startFaultProcess(t *testing.T, bin string, env ...string) (*wiretest.Executor, *session) {
	ex, err := wiretest.StartExecutor(bin, &wiretest.ExecOptions{Env: env})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ex.Kill(); _, _ = ex.Wait() })
	return ex, &session{Controller: ex.Controller, kind: "process", pid: ex.Cmd.Process.Pid}
}

// eachExecutable runs f against orcrt-executor and, when installed, the
// stock executor (whose results are logged and, where noted, compared).
func eachExecutable(t *testing.T, f func(t *testing.T, bin string)) {
	t.Run("orcrt", func(t *testing.T) { f(t, orcrtBin) })
	t.Run("stock", func(t *testing.T) {
		requireStock(t)
		f(t, stockBin)
	})
}

// TestControllerKilledMidCall: the controller dies while a call runs in
// JIT'd code. The call finishes, its result goes nowhere, and the
// executor exits 0 (end of input at a message boundary) as soon as it
// has — within exitBound of the call's end.
func TestControllerKilledMidCall(t *testing.T) {
	eachExecutable(t, func(t *testing.T, bin string) {
		ex, s := startFaultProcess(t, bin)
		lib := faultLib(t, s)
		call, err := s.Start(lib("fault_slow"), msArgs(1000, "slow call done"))
		require.NoError(t, err)
		time.Sleep(200 * time.Millisecond) // the call is running
		st, stderr, took := killed(t, ex, time.Second+exitBound)
		_, err = call.Result()
		assert.ErrorIs(t, err, wiretest.ErrDisconnected)
		assert.Equal(t, wiretest.ExitStatus{}, st)
		assert.Equal(t, "slow call done\n", stderr, "the call ran to its end")
		assert.Greater(t, took, 500*time.Millisecond, "in-flight calls are waited for")
	})
}

// TestControllerKilledMidInitialize: the controller dies while initialize
// runs a slow finalize action. The action completes; at shutdown the
// memory manager releases the region, running its dealloc action — after
// the action, never under it — and the executor exits 0.
func TestControllerKilledMidInitialize(t *testing.T) {
	eachExecutable(t, func(t *testing.T, bin string) {
		ex, s := startFaultProcess(t, bin)
		lib := faultLib(t, s)
		c := ctx(t)
		mm := s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_Instance")
		r, err := wiretest.Call2(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper"), sps.MemoryManagerReserve, mm, 0x1000)
		require.NoError(t, err)
		require.NoError(t, r.Err)
		fr := sps.FinalizeRequest{
			Segments: []sps.SegFinalizeRequest{{Group: sps.Read | sps.Write, Addr: r.Value, Size: 0x1000}},
			Actions: []sps.ActionPair{{
				Finalize: sps.WrapperCall{Fn: lib("fault_slow"), Args: msArgs(1000, "finalize action done")},
				Dealloc:  sps.WrapperCall{Fn: lib("fault_say"), Args: []byte("dealloc action ran")},
			}},
		}
		call, err := s.Start(s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_initialize_wrapper"), sps.MemoryManagerInitialize.AppendArgs(nil, mm, fr))
		require.NoError(t, err)
		time.Sleep(200 * time.Millisecond)
		st, stderr, _ := killed(t, ex, time.Second+exitBound)
		_, err = call.Result()
		assert.ErrorIs(t, err, wiretest.ErrDisconnected)
		assert.Equal(t, wiretest.ExitStatus{}, st)
		assert.Equal(t, "finalize action done\ndealloc action ran\n", stderr, "shutdown released the region after initialize finished")
	})
}

// TestControllerKilledDuringDispatch: JIT'd code waits in jit-dispatch for
// a controller that dies: the dispatch fails with the stock's
// "disconnecting", the code returns, and the executor exits 0 at once.
func TestControllerKilledDuringDispatch(t *testing.T) {
	eachExecutable(t, func(t *testing.T, bin string) {
		ex, s := startFaultProcess(t, bin)
		lib := faultLib(t, s)
		const tag = 0x5a5a0100
		q := s.Queue(tag, 1)
		_, err := s.Start(lib("fault_dispatch_report"), dispatchArgs(s, tag, []byte("payload")))
		require.NoError(t, err)
		in := <-q // the dispatch is pending; never answered
		assert.Equal(t, []byte("payload"), in.Args)
		st, stderr, _ := killed(t, ex, exitBound)
		assert.Equal(t, wiretest.ExitStatus{}, st)
		assert.Equal(t, "dispatch failed: disconnecting\n", stderr)
	})
}

// TestPipeClosedDuringLargeResult: the controller stops reading in the
// middle of a 64 MiB result — the executor is blocked writing into a full
// pipe — and closes its read end. The write fails with EPIPE and the
// session ends in order: "<argv0>: Broken pipe", exit 1, at once. (The
// stock executor dies by SIGPIPE there, skipping its shutdown: checked as
// the documented deviation.)
func TestPipeClosedDuringLargeResult(t *testing.T) {
	eachExecutable(t, func(t *testing.T, bin string) {
		p := startRaw(t, bin)
		const size = 64 << 20
		mm := p.sym["__llvm_orc_SimpleExecutorMemoryManager_Instance"]
		v, err := sps.MemoryManagerReserve.DecodeResult(p.call(t, p.sym["__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper"],
			sps.MemoryManagerReserve.AppendArgs(nil, mm, size)))
		require.NoError(t, err)
		require.NoError(t, v.Err)
		require.NoError(t, p.wr.WriteMsg(simpleremote.OpCallWrapper, 1, p.sym["__llvm_orc_bootstrap_mem_read_buffers_wrapper"],
			sps.ReadBuffers.AppendArgs(nil, []sps.AddrRange{{Start: v.Value, End: v.Value + size}})))
		_, err = io.ReadFull(p.out, make([]byte, 256<<10)) // the result is being written
		require.NoError(t, err)
		time.Sleep(100 * time.Millisecond) // and the pipe is full again
		start := time.Now()
		require.NoError(t, p.out.Close())
		st, err := p.wait(exitBound)
		require.NoError(t, err, "the executor did not exit within %v; stderr %s", exitBound, p.stderr.String())
		t.Logf("%v %v after the controller closed its read end; stderr %q", st, time.Since(start).Round(time.Millisecond), p.stderr.String())
		if bin != orcrtBin {
			assert.Equal(t, wiretest.ExitStatus{Code: -1, Signal: syscall.SIGPIPE}, st, "the stock executor dies by SIGPIPE")
			return
		}
		assert.Equal(t, wiretest.ExitStatus{Code: 1}, st)
		assert.Equal(t, fatalText(bin, "Broken pipe"), p.stderr.String())
	})
}

// rawProcess is an executor process driven byte by byte: the test holds
// both pipe ends and decides when to read.
type rawProcess struct {
	cmd    *exec.Cmd
	in     *os.File // the executor's input (we write)
	out    *os.File // the executor's output (we read)
	wr     *simpleremote.Writer
	rd     *simpleremote.Reader
	sym    map[string]sps.Addr
	stderr bytes.Buffer
}

func startRaw(t *testing.T, bin string) *rawProcess {
	t.Helper()
	toR, toW, err := os.Pipe()
	require.NoError(t, err)
	fromR, fromW, err := os.Pipe()
	require.NoError(t, err)
	p := &rawProcess{in: toW, out: fromR, sym: map[string]sps.Addr{}}
	p.cmd = crossexec.Command(bin, "filedescs=3,4") // via QEMU under the arm64 job
	p.cmd.ExtraFiles = []*os.File{toR, fromW}
	p.cmd.Stderr = &p.stderr
	require.NoError(t, p.cmd.Start())
	_, _ = toR.Close(), fromW.Close()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		_, _ = p.wait(time.Minute)
		_, _ = toW.Close(), fromR.Close()
	})
	p.wr = simpleremote.NewWriter(p.in)
	p.rd = simpleremote.NewReader(p.out, 0, 0)
	h, b, err := p.rd.ReadMsg()
	require.NoError(t, err)
	require.Equal(t, simpleremote.OpSetup, h.Op)
	info, err := sps.Unmarshal(sps.SetupInfoCodec, b)
	require.NoError(t, err)
	for _, s := range info.Symbols {
		p.sym[s.Name] = s.Addr
	}
	return p
}

// call sends a call with sequence number 0 and reads its result (nothing
// else may be in flight).
func (p *rawProcess) call(t *testing.T, fn sps.Addr, args []byte) []byte {
	t.Helper()
	require.NoError(t, p.wr.WriteMsg(simpleremote.OpCallWrapper, 0, fn, args))
	h, b, err := p.rd.ReadMsg()
	require.NoError(t, err)
	require.Equal(t, simpleremote.OpResult, h.Op)
	return b
}

var rawWaitMu sync.Mutex

func (p *rawProcess) wait(d time.Duration) (wiretest.ExitStatus, error) {
	rawWaitMu.Lock()
	defer rawWaitMu.Unlock()
	if p.cmd.ProcessState == nil {
		timer := time.AfterFunc(d, func() { _ = p.cmd.Process.Kill() })
		_ = p.cmd.Wait()
		if !timer.Stop() {
			return wiretest.ExitStatus{}, fmt.Errorf("killed after %v", d)
		}
	}
	ws := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return wiretest.ExitStatus{Code: -1, Signal: ws.Signal()}, nil
	}
	return wiretest.ExitStatus{Code: ws.ExitStatus()}, nil
}

var spinnersAtExit = regexp.MustCompile(`^spinners at exit: ok=(\d+) failed=(\d+)\n$`)

// TestProgramThreadsDispatchAfterControllerDied: threads the JIT'd program
// created keep calling jit-dispatch after the controller is gone. Each of
// their calls fails at once (none blocks), and the executor still exits
// within exitBound — the threads are the program's, not calls it waits
// for.
func TestProgramThreadsDispatchAfterControllerDied(t *testing.T) {
	eachExecutable(t, func(t *testing.T, bin string) {
		ex, s := startFaultProcess(t, bin)
		lib := faultLib(t, s)
		const tag = 0x5a5a0200
		s.HandleFunc(tag, func([]byte) []byte { return []byte("ok") })
		args := append(dispatchArgs(s, tag, nil), words(8, 1)...)
		_, err := s.Call(ctx(t), lib("fault_start_spinners"), args)
		require.NoError(t, err)
		// Let them dispatch successfully for a while.
		deadline := time.Now().Add(10 * time.Second)
		for {
			b, err := s.Call(ctx(t), lib("fault_spinner_counts"), nil)
			require.NoError(t, err)
			if binary.LittleEndian.Uint64(b) >= 50 {
				break
			}
			require.True(t, time.Now().Before(deadline), "spinners never got through")
			time.Sleep(10 * time.Millisecond)
		}
		st, stderr, _ := killed(t, ex, exitBound)
		if bin != orcrtBin {
			t.Logf("stock: %v, stderr %q", st, stderr)
			return
		}
		// End of input or the failed write of a spinner's call, whichever
		// the executor noticed first: both end the session in order.
		if st.Code == 1 {
			stderr = strings.Replace(stderr, fatalText(bin, "Broken pipe"), "", 1)
		} else {
			assert.Equal(t, wiretest.ExitStatus{}, st)
		}
		m := spinnersAtExit.FindStringSubmatch(stderr)
		require.NotNil(t, m, "stderr: %q", stderr)
		ok, _ := strconv.Atoi(m[1])
		failed, _ := strconv.Atoi(m[2])
		t.Logf("spinners: %d dispatches answered before, %d failed after the controller died", ok, failed)
		assert.GreaterOrEqual(t, ok, 50)
		assert.Positive(t, failed, "dispatches after the end fail instead of blocking")
	})
}

// TestInProcessControllerDies: the same faults against an Executor
// embedded in this process — the host's view. Serve returns within
// exitBound of the controller's death with pending jit-dispatches failed;
// JIT'd threads that keep dispatching afterwards get an error at once on
// every call (none blocks) and can be joined; no goroutine is left behind
// (goleak in TestMain).
func TestInProcessControllerDies(t *testing.T) {
	serveReturns := func(t *testing.T, s *session) {
		t.Helper()
		start := time.Now()
		_ = s.Controller.Close()
		out := s.end(t)
		// End of input, or a write that failed first (a jit-dispatch sent
		// as the controller died): both end the session in order.
		var ioe *simpleremote.IOError
		if out.err != nil && !errors.As(out.err, &ioe) {
			t.Errorf("Serve: %v", out.err)
		}
		assert.Less(t, time.Since(start), exitBound)
	}
	t.Run("during-dispatch", func(t *testing.T) {
		s := startInProcess(t, executorOptions())
		lib := loadJITLib(t, s)
		const tag = 0x5a5a0300
		q := s.Queue(tag, 1)
		call, err := s.Start(lib("orcrt_test_dispatch"), dispatchArgs(s, tag, []byte("p")))
		require.NoError(t, err)
		<-q
		serveReturns(t, s)
		_, err = call.Result()
		assert.ErrorIs(t, err, wiretest.ErrDisconnected)
	})
	t.Run("program-threads-keep-dispatching", func(t *testing.T) {
		s := startInProcess(t, executorOptions())
		lib := faultLib(t, s)
		counts, stop := lib("fault_spinner_counts"), lib("fault_stop_spinners")
		const tag = 0x5a5a0400
		s.HandleFunc(tag, func([]byte) []byte { return []byte("ok") })
		_, err := s.Call(ctx(t), lib("fault_start_spinners"), append(dispatchArgs(s, tag, nil), words(8, 0)...))
		require.NoError(t, err)
		time.Sleep(50 * time.Millisecond)
		serveReturns(t, s)
		// The library stays loaded (dlopen'd code is never unloaded): call
		// it directly now that the session is gone.
		read := func() (ok, failed uint64) {
			b, err := nativeCall(uintptr(counts), nil)
			require.NoError(t, err)
			return binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
		}
		ok0, failed0 := read()
		time.Sleep(100 * time.Millisecond)
		ok1, failed1 := read()
		t.Logf("after Serve returned: answered %d -> %d, failed %d -> %d", ok0, ok1, failed0, failed1)
		assert.Equal(t, ok0, ok1, "nothing is answered after the end")
		assert.Greater(t, failed1, failed0+50, "every dispatch fails at once (8 threads, 100 ms, 0.5 ms apart)")
		joined := make(chan struct{})
		go func() {
			_, _ = nativeCall(uintptr(stop), nil)
			close(joined)
		}()
		select {
		case <-joined:
		case <-time.After(exitBound):
			t.Fatal("the program's threads could not be joined: blocked in jit-dispatch")
		}
	})
}

// TestControllerKilledWhileCodeNeverReturns: JIT'd code that never
// returns (a main looping for ever) when the controller dies. The stock
// executor outlives its controller for ever; orcrt-executor waits
// ORCRT_DRAIN_TIMEOUT (default 10 s) for the call, then says so and exits
// 1 — and with ORCRT_DRAIN_TIMEOUT=0 it waits as the stock does.
func TestControllerKilledWhileCodeNeverReturns(t *testing.T) {
	for _, tc := range []struct {
		name, env string
		after     time.Duration // when the executor exits (0: never)
	}{
		{"500ms", "ORCRT_DRAIN_TIMEOUT=500ms", 500 * time.Millisecond},
		{"default", "", 10 * time.Second},
		{"0-waits-for-ever", "ORCRT_DRAIN_TIMEOUT=0", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.after == 10*time.Second && testing.Short() {
				t.Skip("waits the 10 s default")
			}
			var env []string
			if tc.env != "" {
				env = append(env, tc.env)
			}
			ex, s := startFaultProcess(t, orcrtBin, env...)
			lib := faultLib(t, s)
			_, err := s.Start(lib("fault_block_forever"), nil)
			require.NoError(t, err)
			time.Sleep(100 * time.Millisecond)
			if tc.after == 0 {
				require.NoError(t, ex.Close())
				_, err := ex.WaitTimeout(2 * time.Second)
				assert.Error(t, err, "waits for ever, as the stock executor")
				return
			}
			st, stderr, took := killed(t, ex, tc.after+exitBound)
			assert.Equal(t, wiretest.ExitStatus{Code: 1}, st)
			assert.Equal(t, fatalText(orcrtBin, fmt.Sprintf("executor: calls into JIT'd code still running %v after the controller disconnected; not waiting for them", tc.after)), stderr)
			assert.GreaterOrEqual(t, took, tc.after)
		})
	}
}
