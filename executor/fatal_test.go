//go:build cgo

package executor_test

import (
	"context"
	"encoding/binary"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/cbuild"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/rt/svctest"
	"github.com/orcgo/orcrt/sps"
)

// exitBound is how long an executor may take to exit once its session
// has ended, by a fatal input or by the controller going away.
const exitBound = 5 * time.Second

// loadJITLib opens the test library in the executor through its dylib
// manager, as a controller would, and returns a lookup of its symbols.
func loadJITLib(t testing.TB, s *session) func(name string) sps.Addr {
	t.Helper()
	return loadLib(t, s, "orcrtexecjit", svctest.JITLibSource)
}

// loadLib builds a shared object named name from the C source src, opens
// it in the executor through its dylib manager and returns a lookup of
// its symbols (each must exist).
func loadLib(t testing.TB, s *session, name, src string) func(name string) sps.Addr {
	t.Helper()
	so := cbuild.SharedObject(t, name, src)
	c := ctx(t)
	h, err := wiretest.Call3(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_open_wrapper"), sps.DylibManagerOpen,
		s.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_Instance"), so, 0)
	require.NoError(t, err)
	require.NoError(t, h.Err)
	return func(name string) sps.Addr {
		t.Helper()
		r, err := wiretest.Call2(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_resolve_wrapper"), sps.DylibManagerResolve,
			h.Value, []sps.LookupElement{{Name: []byte(name), Required: true}})
		require.NoError(t, err)
		require.NoError(t, r.Err)
		require.NotNil(t, r.Value[0].Value.Addr, name)
		return r.Value[0].Value.Addr
	}
}

// dispatchArgs are the arguments of orcrt_test_dispatch: jit-dispatch to
// tag with payload through the executor's own dispatch function.
func dispatchArgs(s *session, tag sps.Addr, payload []byte) []byte {
	var b []byte
	for _, v := range []sps.Addr{s.MustSymbol("__llvm_orc_SimpleRemoteEPC_dispatch_fn"), s.MustSymbol("__llvm_orc_SimpleRemoteEPC_dispatch_ctx"), tag} {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	return append(b, payload...)
}

// fatalCase is one input that ends the session, and how.
type fatalCase struct {
	name string
	// send misbehaves; the controller then closes its output.
	send func(t *testing.T, s *session)
	// msg is the terminal message ("" for an orderly end, exit 0).
	msg string
	// stock says how the stock executor handles the input: "same" (exit
	// status and stderr compared), "last line" (exit status and the last
	// line of stderr compared: the stock also prints "SimpleRemoteEPCServer
	// FD-transport disconnected" when it fails a pending jit-dispatch), or
	// why it is not compared.
	stock string
}

func fatalCases() []fatalCase {
	raw := func(b ...[]byte) func(*testing.T, *session) {
		return func(t *testing.T, s *session) { require.NoError(t, s.SendRaw(cat(b...))) }
	}
	tooLarge := func(size uint64) string {
		return (&simpleremote.MessageTooLargeError{Size: size, Limit: simpleremote.DefaultMaxMessageSize}).Error()
	}
	const tag = 0x5a5a0000
	return []fatalCase{
		// Truncated headers and payloads (clean EOF and EOF in a header
		// at byte 10 and in a payload: TestProbe2).
		{name: "header-1-byte", send: raw([]byte{0x28}), msg: "Unexpected end-of-file", stock: "same"},
		{name: "header-31-bytes", send: raw(wiretest.RawHeader(40, 3, 0, 0)[:31]), msg: "Unexpected end-of-file", stock: "same"},
		{name: "payload-0-of-8", send: raw(wiretest.RawHeader(40, 3, 0, 0x1000)), msg: "Unexpected end-of-file", stock: "same"},
		{name: "payload-after-good-call", send: func(t *testing.T, s *session) {
			_, err := s.CallName(ctx(t), "__llvm_orc_bootstrap_mem_read_buffers_wrapper", make([]byte, 8))
			require.NoError(t, err)
			require.NoError(t, s.SendRaw(cat(wiretest.RawHeader(1<<20, 2, 0, 0), make([]byte, 1000))))
		}, msg: "Unexpected end-of-file", stock: "same"},
		// Sizes below the header (16: TestProbe2).
		{name: "size-0", send: raw(wiretest.RawHeader(0, 3, 0, 0)), msg: "Message size too small", stock: "same"},
		{name: "size-31", send: raw(wiretest.RawHeader(31, 1, 0, 0)), msg: "Message size too small", stock: "same"},
		// Sizes near 2^64 and above the limit (1 GiB, a deliberate
		// deviation): the stock executor sizes a buffer by the header.
		{name: "size-2^64-1", send: raw(wiretest.RawHeader(math.MaxUint64, 3, 0, 0)), msg: tooLarge(math.MaxUint64), stock: "dies of SIGSEGV (probed)"},
		{name: "size-2^64-32", send: raw(wiretest.RawHeader(math.MaxUint64-31, 2, 0, 0)), msg: tooLarge(math.MaxUint64 - 31), stock: "dies of SIGSEGV (probed)"},
		{name: "size-2^63", send: raw(wiretest.RawHeader(1<<63, 3, 0, 0)), msg: tooLarge(1 << 63), stock: "reads into a buffer it could not allocate: \"Bad address\" (probed)"},
		{name: "size-limit+1", send: raw(wiretest.RawHeader(simpleremote.DefaultMaxMessageSize+1, 3, 0, 0)), msg: tooLarge(simpleremote.DefaultMaxMessageSize + 1), stock: "allocates 1 GiB, then reports \"Unexpected end-of-file\" (probed)"},
		{name: "size-at-limit-then-eof", send: raw(wiretest.RawHeader(simpleremote.DefaultMaxMessageSize, 3, 0, 0), []byte("abc")), msg: "Unexpected end-of-file", stock: "allocates 1 GiB first (same message)"},
		// Opcodes (4: TestProbe2).
		{name: "opcode-255", send: raw(wiretest.Frame(255, 0, 0, nil)), msg: "Unexpected opcode", stock: "same"},
		{name: "opcode-2^63", send: raw(wiretest.Frame(1<<63, 0, 0, []byte{1})), msg: "Unexpected opcode", stock: "truncates the opcode to 8 bits: 0, \"Unexpected Setup opcode\""},
		{name: "opcode-0x103", send: raw(wiretest.Frame(0x103, 0, 0x1000, nil)), msg: "Unexpected opcode", stock: "truncates the opcode to 8 bits and runs a CallWrapper of 0x1000 (crash)"},
		{name: "opcode-5-truncated-payload", send: raw(wiretest.RawHeader(64, 5, 0, 0), []byte{1}), msg: "Unexpected end-of-file", stock: "same"},
		// Setup from the controller (with a valid payload: TestProbe2).
		{name: "setup-empty", send: raw(wiretest.Frame(simpleremote.OpSetup, 0, 0, nil)), msg: "Unexpected Setup opcode", stock: "same"},
		{name: "setup-after-calls", send: func(t *testing.T, s *session) {
			for range 3 {
				_, err := s.CallName(ctx(t), "__llvm_orc_bootstrap_mem_read_buffers_wrapper", make([]byte, 8))
				require.NoError(t, err)
			}
			require.NoError(t, s.SendRaw(wiretest.Frame(simpleremote.OpSetup, 9, 9, []byte("junk"))))
		}, msg: "Unexpected Setup opcode", stock: "same"},
		// Results for sequence numbers with no pending call (7 at startup:
		// TestProbe2).
		{name: "result-seq-2^64-1", send: func(t *testing.T, s *session) { require.NoError(t, s.SendResult(math.MaxUint64, nil)) },
			msg: "No call for sequence number 18446744073709551615", stock: "same"},
		{name: "result-already-answered", send: func(t *testing.T, s *session) {
			lib := loadJITLib(t, s)
			s.HandleFunc(tag, func(args []byte) []byte { return append([]byte("echo:"), args...) })
			got, err := s.Call(ctx(t), lib("orcrt_test_dispatch"), dispatchArgs(s, tag, []byte("hi")))
			require.NoError(t, err)
			require.Equal(t, "echo:hi", string(got))
			require.NoError(t, s.SendResult(0, []byte("again"))) // seq 0 was the dispatch, answered
		}, msg: "No call for sequence number 0", stock: "same"},
		{name: "result-unknown-while-dispatch-pending", send: func(t *testing.T, s *session) {
			lib := loadJITLib(t, s)
			q := s.Queue(tag, 1)
			call, err := s.Start(lib("orcrt_test_dispatch"), dispatchArgs(s, tag, []byte("hi")))
			require.NoError(t, err)
			in := <-q
			require.Equal(t, uint64(0), in.Seq)
			require.NoError(t, s.SendResult(1, nil))
			// The pending dispatch fails ("disconnecting") and JIT'd code
			// returns; its result is dropped with the connection.
			_, err = call.Wait(ctx(t))
			assert.ErrorIs(t, err, wiretest.ErrDisconnected)
		}, msg: "No call for sequence number 1", stock: "last line"},
		// Hangup ends the session normally whatever its payload (empty,
		// success, failure with junk: TestProbe2) — but a truncated one is
		// a truncated message.
		{name: "hangup-junk", send: raw(wiretest.HangupFrame([]byte{9, 9, 9})), stock: "same"},
		{name: "hangup-error-claims-4GiB-string", send: raw(wiretest.HangupFrame(binary.LittleEndian.AppendUint64([]byte{1}, 4<<30))), stock: "same"},
		{name: "hangup-1MiB-payload", send: raw(wiretest.HangupFrame(make([]byte, 1<<20))), stock: "same"},
		{name: "hangup-then-garbage", send: raw(wiretest.HangupFrame(nil), []byte("garbage that is never read")), stock: "same"},
		{name: "hangup-truncated", send: raw(wiretest.RawHeader(64, 1, 0, 0), []byte{0}), msg: "Unexpected end-of-file", stock: "same"},
	}
}

func cat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

// TestFatalInputs: each malformed or unexpected input ends the session as
// the table says — an orcrt-executor process prints exactly
// "<argv0>: <stock message>" and exits 1 (or exits 0 for an orderly end),
// never a Go panic trace, within exitBound of its end of input; an
// in-process Serve returns the same message. The stock executor, where it
// has defined behaviour, is compared byte for byte. (The basic cases of
// the stock-executor probes are TestProbe2.)
func TestFatalInputs(t *testing.T) {
	for _, tc := range fatalCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Run("process", func(t *testing.T) {
				st, stderr := runFatal(t, orcrtBin, tc)
				want, wantErr := 0, ""
				if tc.msg != "" {
					want, wantErr = 1, fatalText(orcrtBin, tc.msg)
				}
				assert.Equal(t, wiretest.ExitStatus{Code: want}, st, stderr)
				assert.Equal(t, wantErr, stderr)
				assert.NotContains(t, stderr, "goroutine ")
				assert.NotContains(t, stderr, "panic")
			})
			t.Run("inprocess", func(t *testing.T) {
				s := startInProcess(t, executorOptions())
				tc.send(t, s)
				out := s.end(t)
				if tc.msg == "" {
					assert.NoError(t, out.err)
				} else {
					assert.EqualError(t, out.err, tc.msg)
				}
			})
			t.Run("stock", func(t *testing.T) {
				requireStock(t)
				if tc.stock != "same" && tc.stock != "last line" {
					t.Skip("not compared: the stock executor " + tc.stock)
				}
				st, stderr := runFatal(t, stockBin, tc)
				ost, ostderr := runFatal(t, orcrtBin, tc)
				assert.Equal(t, st, ost)
				stderr = strings.ReplaceAll(stderr, stockBin, "<executor>")
				ostderr = strings.ReplaceAll(ostderr, orcrtBin, "<executor>")
				if tc.stock == "last line" {
					stderr = lastLine(stderr)
				}
				assert.Equal(t, stderr, ostderr)
			})
		})
	}
}

// runFatal starts bin, plays tc, closes the controller's output and
// returns how the process ended, failing if it took longer than
// exitBound after that.
func runFatal(t *testing.T, bin string, tc fatalCase) (wiretest.ExitStatus, string) {
	t.Helper()
	ex, err := wiretest.StartExecutor(bin, nil)
	require.NoError(t, err)
	s := &session{Controller: ex.Controller, kind: "process", pid: ex.Cmd.Process.Pid}
	tc.send(t, s)
	start := time.Now()
	_ = ex.CloseWrite()
	st, err := ex.WaitTimeout(exitBound)
	require.NoError(t, err, "the executor did not exit within %v of its end of input; stderr: %s", exitBound, ex.Stderr())
	c, cancel := context.WithTimeout(context.Background(), exitBound)
	defer cancel()
	_ = ex.Finish(c)
	t.Logf("%s exited %v after %v", bin, st, time.Since(start).Round(time.Millisecond))
	return st, ex.Stderr()
}

func lastLine(s string) string {
	lines := trimLines(s)
	return lines[len(lines)-1] + "\n"
}

// TestMessageSizeLimitConfigurable: orcrt-executor's MsgSize limit is
// ORCRT_MAX_MESSAGE_SIZE (default 1 GiB, see TestFatalInputs): a call at
// the limit is served, one byte more ends the session with the limit in
// the message.
func TestMessageSizeLimitConfigurable(t *testing.T) {
	ex, err := wiretest.StartExecutor(orcrtBin, &wiretest.ExecOptions{Env: []string{"ORCRT_MAX_MESSAGE_SIZE=4096"}})
	require.NoError(t, err)
	args := sps.ReadBuffers.AppendArgs(nil, make([]sps.AddrRange, (4096-32-8)/16))
	args = append(args, make([]byte, 4096-32-len(args))...) // trailing bytes are ignored
	got, err := ex.CallName(ctx(t), "__llvm_orc_bootstrap_mem_read_buffers_wrapper", args)
	require.NoError(t, err)
	assert.NotEmpty(t, got)
	require.NoError(t, ex.SendRaw(wiretest.RawHeader(4097, 3, 1, 0)))
	_ = ex.CloseWrite()
	st, err := ex.WaitTimeout(exitBound)
	require.NoError(t, err)
	assert.Equal(t, wiretest.ExitStatus{Code: 1}, st)
	assert.Equal(t, fatalText(orcrtBin, "Message size 4097 exceeds the limit of 4096 bytes"), ex.Stderr())
	_ = ex.Close()
}
