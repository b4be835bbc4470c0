package simpleremote_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/sps"
)

const waitLong = 20 * time.Second

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	t.Cleanup(cancel)
	return ctx
}

// attach builds a test Session and connects it to a wiretest Controller
// over tr through a simpleremote CA.
func attach(t *testing.T, tr wiretest.Transport, caOpts *simpleremote.Options) (*testSession, *wiretest.Controller, *simpleremote.CA) {
	t.Helper()
	ts, err := newTestSession()
	require.NoError(t, err)
	ctl, ca, err := wiretest.Attach(ts.s, ts.bi, tr, caOpts, nil)
	if err != nil {
		ts.close()
		require.NoError(t, err)
	}
	t.Cleanup(func() {
		_ = ctl.Close()
		waitDone(t, ca)
		ts.close()
	})
	return ts, ctl, ca
}

func waitDone(t *testing.T, ca *simpleremote.CA) {
	t.Helper()
	select {
	case <-ca.Done():
	case <-time.After(waitLong):
		t.Fatal("the CA did not end")
	}
}

func waitCh(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(waitLong):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func TestSetupDecodesToBootstrapInfo(t *testing.T) {
	for _, tr := range wiretest.Transports {
		t.Run(string(tr), func(t *testing.T) {
			ts, ctl, _ := attach(t, tr, nil)
			want := ts.bi.SetupInfo()
			assert.Equal(t, want, ctl.Setup())
			assert.Equal(t, sps.Marshal(sps.SetupInfoCodec, want), ctl.SetupPayload())
			for _, sym := range ts.bi.Symbols.Symbols() {
				a, ok := ctl.Symbol(sym.Name)
				assert.True(t, ok, sym.Name)
				assert.Equal(t, sym.Addr, a, sym.Name)
			}
			assert.Equal(t, ts.s.ProcessInfo().TargetTriple(), ctl.Setup().Triple)
			assert.Equal(t, ts.s.ProcessInfo().PageSize(), ctl.Setup().PageSize)
		})
	}
}

func TestCallsAllTransports(t *testing.T) {
	for _, tr := range wiretest.Transports {
		t.Run(string(tr), func(t *testing.T) {
			ts, ctl, ca := attach(t, tr, nil)
			ctx := ctxT(t)
			got, err := ctl.CallName(ctx, symEcho, []byte("hello"))
			require.NoError(t, err)
			assert.Equal(t, []byte("hello"), got)
			got, err = ctl.CallName(ctx, symEcho, nil)
			require.NoError(t, err)
			assert.Empty(t, got)
			got, err = ctl.CallName(ctx, symEmpty, []byte{1, 2})
			require.NoError(t, err)
			assert.Empty(t, got)
			// An out-of-band error is an empty payload with TagAddr 0 (the
			// controller rejects any other tag).
			got, err = ctl.CallName(ctx, symOOB, nil)
			require.NoError(t, err)
			assert.Empty(t, got)
			// Unknown target: the Session answers out-of-band: empty.
			got, err = ctl.Call(ctx, 0xdead0000, []byte{1})
			require.NoError(t, err)
			assert.Empty(t, got)
			// Big payloads both ways.
			big := pattern(16<<20 + 7)
			got, err = ctl.CallName(ctx, symEcho, big)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(big, got))
			got, err = ctl.CallName(ctx, symBig, u64(9<<20))
			require.NoError(t, err)
			assert.True(t, bytes.Equal(pattern(9<<20), got))

			require.NoError(t, ctl.Finish(ctx))
			waitDone(t, ca)
			assert.NoError(t, ca.Err())
			assert.Equal(t, []error{nil}, ts.disconnectErrs())
		})
	}
}

// TestFatalInputs: each malformed or unexpected input ends the session
// with the stock error text: the CA stops reading, closes its side (the
// controller sees end-of-file) and notifies the Session exactly once.
func TestFatalInputs(t *testing.T) {
	cases := []struct {
		name   string
		opts   *simpleremote.Options
		send   func(t *testing.T, ctl *wiretest.Controller)
		want   string // "" = orderly
		closeW bool   // end the controller's output after sending
	}{
		{name: "clean EOF", closeW: true},
		{name: "truncated header", send: raw(wiretest.RawHeader(40, 3, 0, 0)[:20]), closeW: true, want: "Unexpected end-of-file"},
		{name: "truncated payload", send: raw(wiretest.RawHeader(40, 3, 0, 0), []byte{1, 2, 3}), closeW: true, want: "Unexpected end-of-file"},
		{name: "size below header", send: raw(wiretest.RawHeader(16, 3, 0, 0)), want: "Message size too small"},
		{name: "size 0", send: raw(wiretest.RawHeader(0, 2, 0, 0)), want: "Message size too small"},
		{name: "size near 2^64", send: raw(wiretest.RawHeader(math.MaxUint64, 3, 0, 0)),
			want: "Message size 18446744073709551615 exceeds the limit of 1073741824 bytes"},
		{name: "size over limit", opts: &simpleremote.Options{MaxMessageSize: 1 << 20},
			send: raw(wiretest.RawHeader(2<<20, 3, 0, 0)), want: "Message size 2097152 exceeds the limit of 1048576 bytes"},
		{name: "unknown opcode", send: raw(wiretest.Frame(4, 0, 0, nil)), want: "Unexpected opcode"},
		{name: "opcode 2^32+3", send: raw(wiretest.Frame(1<<32+3, 0, 0, []byte{1})), want: "Unexpected opcode"},
		{name: "setup from controller", send: raw(wiretest.SetupFrame(sps.SetupInfo{Triple: "x"})), want: "Unexpected Setup opcode"},
		{name: "result for unknown seq", send: raw(wiretest.ResultFrame(999, nil)), want: "No call for sequence number 999"},
		{name: "result for seq 2^64-1", send: raw(wiretest.ResultFrame(math.MaxUint64, []byte{1})), want: "No call for sequence number 18446744073709551615"},
		{name: "result for answered seq", send: answeredTwice, want: "No call for sequence number 0"},
		{name: "hangup empty", send: raw(wiretest.HangupFrame(nil))},
		{name: "hangup success", send: raw(wiretest.HangupFrame([]byte{0}))},
		{name: "hangup failure", send: raw(wiretest.HangupFrame(sps.Marshal(sps.ErrorCodec, error(&sps.RemoteError{Msg: "bye"}))))},
		{name: "hangup malformed", send: raw(wiretest.HangupFrame([]byte{7, 7, 7}))},
		{name: "hangup with seq and tag", send: raw(wiretest.Frame(simpleremote.OpHangup, 5, 6, []byte{1, 2}))},
		{name: "hangup then garbage", send: raw(wiretest.HangupFrame(nil), []byte("garbage that is never read!!!!!!!!!!!!!"))},
		{name: "call then EOF", send: raw(wiretest.CallFrame(0, 0x1234, nil)), closeW: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ts, ctl, ca := attach(t, wiretest.Pipe, tc.opts)
			if tc.send != nil {
				tc.send(t, ctl)
			}
			if tc.closeW {
				require.NoError(t, ctl.CloseWrite())
			}
			waitDone(t, ca)
			waitCh(t, ctl.Done(), "the controller to see end-of-file")
			if tc.want == "" {
				assert.NoError(t, ca.Err())
			} else {
				assert.EqualError(t, ca.Err(), tc.want)
			}
			errs := ts.disconnectErrs()
			require.Len(t, errs, 1, "NotifyDisconnected exactly once")
			assert.Equal(t, ca.Err(), errs[0])
			_, hung := ctl.HangupPayload()
			assert.False(t, hung, "a remote end sends no Hangup back")
			assert.Zero(t, ca.Pending())
		})
	}
}

func raw(bs ...[]byte) func(*testing.T, *wiretest.Controller) {
	return func(t *testing.T, ctl *wiretest.Controller) {
		require.NoError(t, ctl.SendRaw(bytes.Join(bs, nil)))
	}
}

// answeredTwice answers the executor's call 0 twice.
func answeredTwice(t *testing.T, ctl *wiretest.Controller) {
	const tag = 0x7000
	q := ctl.Queue(tag, 1)
	call, err := ctl.Start(ctl.MustSymbol(symCallCtl), u64(tag))
	require.NoError(t, err)
	in := <-q
	require.Equal(t, uint64(0), in.Seq)
	require.NoError(t, in.Reply([]byte("r")))
	got, err := call.Wait(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, []byte("r"), got)
	require.NoError(t, ctl.SendResult(in.Seq, []byte("again")))
}

func TestPipelinedCalls(t *testing.T) {
	for _, tr := range []wiretest.Transport{wiretest.Pipe, wiretest.Mem} {
		t.Run(string(tr), func(t *testing.T) {
			_, ctl, _ := attach(t, tr, nil)
			echo := ctl.MustSymbol(symEcho)
			var calls []*wiretest.Call
			for i := range 300 {
				c, err := ctl.Start(echo, fmt.Appendf(nil, "call %d", i))
				require.NoError(t, err)
				assert.Equal(t, uint64(i), c.Seq)
				calls = append(calls, c)
			}
			for i, c := range calls {
				got, err := c.Wait(ctxT(t))
				require.NoError(t, err)
				assert.Equal(t, fmt.Sprintf("call %d", i), string(got))
			}
		})
	}
}

// TestExecutorResultsOutOfOrder: calls finish in another order than they
// were made; each result reaches its own call.
func TestExecutorResultsOutOfOrder(t *testing.T) {
	ts, ctl, _ := attach(t, wiretest.Pipe, nil)
	gate := ctl.MustSymbol(symGate)
	calls := map[uint64]*wiretest.Call{}
	for _, id := range []uint64{1, 2, 3} {
		c, err := ctl.Start(gate, u64(id))
		require.NoError(t, err)
		calls[id] = c
	}
	for _, id := range []uint64{3, 1, 2} {
		ts.open(id)
		got, err := calls[id].Wait(ctxT(t))
		require.NoError(t, err)
		assert.Equal(t, u64(id), got)
	}
}

// TestControllerResultsOutOfOrder: executor->controller calls answered
// in reverse order are routed by sequence number.
func TestControllerResultsOutOfOrder(t *testing.T) {
	_, ctl, ca := attach(t, wiretest.Pipe, nil)
	const tag = 0x5000
	q := ctl.Queue(tag, 16)
	callctl := ctl.MustSymbol(symCallCtl)
	var calls []*wiretest.Call
	for i := range 8 {
		c, err := ctl.Start(callctl, append(u64(tag), byte(i)))
		require.NoError(t, err)
		calls = append(calls, c)
	}
	var ins []*wiretest.Incoming
	for range 8 {
		select {
		case in := <-q:
			ins = append(ins, in)
		case <-time.After(waitLong):
			t.Fatal("executor calls did not arrive")
		}
	}
	assert.Equal(t, 8, ca.Pending())
	seqs := map[uint64]bool{}
	for _, in := range ins {
		seqs[in.Seq] = true
		assert.Equal(t, sps.Addr(tag), in.Tag)
	}
	assert.Len(t, seqs, 8)
	for s := range uint64(8) {
		assert.True(t, seqs[s], "executor sequence numbers are 0..7")
	}
	sort.Slice(ins, func(i, j int) bool { return ins[i].Seq > ins[j].Seq })
	for _, in := range ins {
		require.NoError(t, in.Reply(append([]byte("answer to "), in.Args...)))
	}
	for i, c := range calls {
		got, err := c.Wait(ctxT(t))
		require.NoError(t, err)
		assert.Equal(t, append([]byte("answer to "), byte(i)), got)
	}
	assert.Zero(t, ca.Pending())
}

// TestNestedCalls is the lazy-linking pattern (docs/protocol.md §7.2): an executor->controller
// call blocks its goroutine while the controller sends new calls that
// must be served before it answers.
func TestNestedCalls(t *testing.T) {
	_, ctl, _ := attach(t, wiretest.Pipe, nil)
	ctx := ctxT(t)
	const resolveTag = 0x6000
	echo := ctl.MustSymbol(symEcho)
	var served atomic.Int32
	ctl.Handle(resolveTag, func(in *wiretest.Incoming) {
		// Before answering, link more code: calls into the executor.
		for i := range 3 {
			got, err := ctl.Call(ctx, echo, []byte{byte(i)})
			if err != nil || !bytes.Equal(got, []byte{byte(i)}) {
				t.Errorf("nested call %d: %q, %v", i, got, err)
			}
			served.Add(1)
		}
		_ = in.Reply(append([]byte("resolved:"), in.Args...))
	})
	callctl := ctl.MustSymbol(symCallCtl)
	for i := range 3 {
		got, err := ctl.Call(ctx, callctl, append(u64(resolveTag), byte('a'+i)))
		require.NoError(t, err)
		assert.Equal(t, "resolved:"+string(rune('a'+i)), string(got))
	}
	assert.Equal(t, int32(9), served.Load())
}

// TestConcurrentCallsBothWays hammers both directions at once under
// -race: many controller calls, many executor->controller calls.
func TestConcurrentCallsBothWays(t *testing.T) {
	for _, tr := range []wiretest.Transport{wiretest.Pipe, wiretest.Unix, wiretest.TCP} {
		t.Run(string(tr), func(t *testing.T) {
			_, ctl, _ := attach(t, tr, nil)
			ctx := ctxT(t)
			const tag = 0x9000
			ctl.HandleFunc(tag, func(args []byte) []byte { return append([]byte("c:"), args...) })
			echo, callctl := ctl.MustSymbol(symEcho), ctl.MustSymbol(symCallCtl)
			var wg sync.WaitGroup
			for g := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 50 {
						msg := fmt.Appendf(nil, "%d/%d", g, i)
						if i%2 == 0 {
							got, err := ctl.Call(ctx, echo, bytes.Repeat(msg, 1+i*10))
							if err != nil || !bytes.Equal(got, bytes.Repeat(msg, 1+i*10)) {
								t.Errorf("echo %s: %v", msg, err)
								return
							}
						} else {
							got, err := ctl.Call(ctx, callctl, append(u64(tag), msg...))
							if err != nil || string(got) != "c:"+string(msg) {
								t.Errorf("callctl %s: %q %v", msg, got, err)
								return
							}
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}

// TestPendingCallsFailedExactlyOnce: executor->controller calls pending
// at a disconnect complete exactly once with "disconnected"; calls made
// after it complete inline.
func TestPendingCallsFailedExactlyOnce(t *testing.T) {
	for _, how := range []string{"remote EOF", "local detach", "fatal input"} {
		t.Run(how, func(t *testing.T) {
			ts, ctl, ca := attach(t, wiretest.Pipe, nil)
			const tag = 0xa000
			q := ctl.Queue(tag, 1000)
			const n = 200
			var completions [n]atomic.Int32
			var wg sync.WaitGroup
			wg.Add(n)
			results := make([]rt.WrapperResult, n)
			var issued atomic.Int32 // calls registered (CallController returned)
			for i := range n {
				go func() {
					ts.s.CallController(tag, []byte{byte(i)}, func(r rt.WrapperResult) {
						completions[i].Add(1)
						results[i] = r
						wg.Done()
					})
					issued.Add(1)
				}()
			}
			// Let some arrive and answer a few, so both paths run.
			answered := 0
			for answered < 20 {
				in := <-q
				require.NoError(t, in.Reply([]byte("ok")))
				answered++
			}
			// Every call registered, the answers routed: now disconnect.
			// (Pending alone can match early: one call not yet made and
			// one answer not yet routed.)
			deadline := time.Now().Add(waitLong)
			for (issued.Load() != n || ca.Pending() != n-answered) && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			require.Equal(t, n-answered, ca.Pending())
			switch how {
			case "remote EOF":
				require.NoError(t, ctl.CloseWrite())
			case "local detach":
				ts.s.Detach(nil)
			case "fatal input":
				require.NoError(t, ctl.SendRaw(wiretest.RawHeader(1, 3, 0, 0)))
			}
			waitDone(t, ca)
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			waitCh(t, done, "every controller call to complete")
			ok, failed := 0, 0
			for i := range n {
				assert.Equal(t, int32(1), completions[i].Load(), "call %d", i)
				if msg, oob := results[i].OutOfBandError(); oob {
					assert.Equal(t, rt.MsgDisconnected, msg)
					failed++
				} else {
					assert.Equal(t, []byte("ok"), results[i].Bytes())
					ok++
				}
			}
			assert.Equal(t, answered, ok)
			assert.Equal(t, n-answered, failed)
			// After the disconnect: completes at once, inline.
			var late atomic.Int32
			ts.s.CallController(tag, nil, func(r rt.WrapperResult) {
				assert.True(t, r.IsOutOfBandError())
				late.Add(1)
			})
			assert.Equal(t, int32(1), late.Load())
			assert.Len(t, ts.disconnectErrs(), 1)
		})
	}
}

// TestDisconnectRacesRemoteEOF: a local Detach racing the controller's
// end-of-file notifies exactly once, orderly, and never hangs.
func TestDisconnectRacesRemoteEOF(t *testing.T) {
	for i := range 100 {
		ts, err := newTestSession()
		require.NoError(t, err)
		ctl, ca, err := wiretest.Attach(ts.s, ts.bi, wiretest.Pipe, nil, nil)
		require.NoError(t, err)
		start := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); <-start; ts.s.Detach(nil) }()
		go func() { defer wg.Done(); <-start; _ = ctl.CloseWrite() }()
		if i%2 == 0 {
			// Also race a second, remote-initiated path: fatal input.
			wg.Add(1)
			go func() { defer wg.Done(); <-start; _ = ctl.SendRaw([]byte{1, 2, 3}) }()
		}
		close(start)
		wg.Wait()
		waitDone(t, ca)
		waitCh(t, ctl.Done(), "controller EOF")
		_ = ctl.Close()
		errs := ts.disconnectErrs()
		require.Len(t, errs, 1, "iteration %d", i)
		if i%2 == 0 && errs[0] != nil {
			// The truncated header won the race: a fatal end, reported once.
			assert.Same(t, simpleremote.ErrUnexpectedEOF, errs[0])
		} else {
			assert.NoError(t, errs[0])
		}
		assert.Equal(t, errs[0], ca.Err())
		ca.Disconnect() // idempotent after the end
		ts.close()
	}
}

// TestLocalDisconnectSendsHangup: a local disconnect sends
// Hangup(SPSError success) and then closes; the controller sees both.
func TestLocalDisconnectSendsHangup(t *testing.T) {
	ts, ctl, ca := attach(t, wiretest.Pipe, nil)
	ts.s.Detach(nil)
	waitDone(t, ca)
	waitCh(t, ctl.Done(), "controller EOF")
	p, ok := ctl.HangupPayload()
	assert.True(t, ok)
	assert.Equal(t, []byte{0}, p)
	assert.NoError(t, ca.Err())
	assert.NoError(t, ctl.Err())
	assert.Equal(t, []error{nil}, ts.disconnectErrs())
}

// rawSession attaches a test session to a raw pipe controller: the test
// reads and writes frames itself.
type rawSession struct {
	ts  *testSession
	ca  *simpleremote.CA
	pc  *wiretest.PipeConn
	rd  *simpleremote.Reader
	wr  *simpleremote.Writer
	bi  *rt.BootstrapInfo
	sym map[string]sps.Addr
}

func attachRaw(t *testing.T, caOpts *simpleremote.Options) *rawSession {
	t.Helper()
	ts, err := newTestSession()
	require.NoError(t, err)
	ex, ctlEnd, err := wiretest.Connect(wiretest.Pipe)
	require.NoError(t, err)
	pc := ctlEnd.(*wiretest.PipeConn)
	ca := simpleremote.New(ex, caOpts)
	require.NoError(t, ts.s.Attach(ca, ts.bi))
	rs := &rawSession{ts: ts, ca: ca, pc: pc, rd: simpleremote.NewReader(pc, 0, 0), wr: simpleremote.NewWriter(pc), bi: ts.bi, sym: map[string]sps.Addr{}}
	h, p, err := rs.rd.ReadMsg()
	require.NoError(t, err)
	require.Equal(t, simpleremote.Header{Size: uint64(len(p)) + simpleremote.HeaderSize, Op: simpleremote.OpSetup}, h)
	for _, s := range ts.bi.Symbols.Symbols() {
		rs.sym[s.Name] = s.Addr
	}
	t.Cleanup(func() {
		_ = pc.Close()
		waitDone(t, ca)
		ts.close()
	})
	return rs
}

// TestPipeClosedDuringLargeResult: the controller stops reading in the
// middle of a large result: the write fails with EPIPE, the session ends
// with "Broken pipe", nothing hangs.
func TestPipeClosedDuringLargeResult(t *testing.T) {
	rs := attachRaw(t, nil)
	require.NoError(t, rs.wr.WriteMsg(simpleremote.OpCallWrapper, 0, rs.sym[symBig], u64(64<<20)))
	buf := make([]byte, 100<<10)
	_, err := io.ReadFull(rs.pc, buf) // the result is on its way
	require.NoError(t, err)
	require.NoError(t, rs.pc.CloseRead())
	waitDone(t, rs.ca)
	assert.EqualError(t, rs.ca.Err(), "Broken pipe")
	assert.Equal(t, []error{rs.ca.Err()}, rs.ts.disconnectErrs())
}

// TestLocalDisconnectStuckController: the controller reads nothing while
// a large result fills the pipe; a local disconnect still ends the
// session after the Hangup timeout.
func TestLocalDisconnectStuckController(t *testing.T) {
	rs := attachRaw(t, &simpleremote.Options{HangupTimeout: 200 * time.Millisecond})
	require.NoError(t, rs.wr.WriteMsg(simpleremote.OpCallWrapper, 0, rs.sym[symBig], u64(8<<20)))
	time.Sleep(50 * time.Millisecond) // let the result fill the pipe
	start := time.Now()
	rs.ts.s.Detach(nil)
	waitDone(t, rs.ca)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.NoError(t, rs.ca.Err())
}

// TestResultsAfterDisconnectDropped: a result produced after a local
// disconnect is never sent: the controller sees Hangup, then end-of-file.
func TestResultsAfterDisconnectDropped(t *testing.T) {
	rs := attachRaw(t, nil)
	require.NoError(t, rs.wr.WriteMsg(simpleremote.OpCallWrapper, 0, rs.sym[symGate], u64(1)))
	select {
	case <-rs.ts.entered:
	case <-time.After(waitLong):
		t.Fatal("the gate wrapper did not start")
	}
	rs.ts.s.Detach(nil)
	waitDone(t, rs.ca)
	rs.ts.open(1) // the wrapper returns now; its result must be dropped
	h, p, err := rs.rd.ReadMsg()
	require.NoError(t, err)
	assert.Equal(t, simpleremote.OpHangup, h.Op)
	assert.Equal(t, []byte{0}, p)
	_, _, err = rs.rd.ReadMsg()
	assert.Equal(t, io.EOF, err)
}

// TestResultWireFormat checks the raw bytes of Results: TagAddr 0, the
// call's SeqNo, an out-of-band error as an empty payload.
func TestResultWireFormat(t *testing.T) {
	rs := attachRaw(t, nil)
	require.NoError(t, rs.wr.WriteMsg(simpleremote.OpCallWrapper, 41, rs.sym[symOOB], nil))
	h, p, err := rs.rd.ReadMsg()
	require.NoError(t, err)
	assert.Equal(t, simpleremote.Header{Size: 32, Op: simpleremote.OpResult, SeqNo: 41, Tag: 0}, h)
	assert.Nil(t, p)
	require.NoError(t, rs.wr.WriteMsg(simpleremote.OpCallWrapper, 0, rs.sym[symEcho], []byte{5, 6}))
	h, p, err = rs.rd.ReadMsg()
	require.NoError(t, err)
	assert.Equal(t, simpleremote.Header{Size: 34, Op: simpleremote.OpResult, SeqNo: 0, Tag: 0}, h)
	assert.Equal(t, []byte{5, 6}, p)
	// Executor->controller calls: CallWrapper with the tag, seq from 0.
	require.NoError(t, rs.wr.WriteMsg(simpleremote.OpCallWrapper, 1, rs.sym[symCallCtl], append(u64(0xbeef), 'x')))
	h, p, err = rs.rd.ReadMsg()
	require.NoError(t, err)
	assert.Equal(t, simpleremote.Header{Size: 33, Op: simpleremote.OpCallWrapper, SeqNo: 0, Tag: 0xbeef}, h)
	assert.Equal(t, []byte{'x'}, p)
	require.NoError(t, rs.wr.WriteMsg(simpleremote.OpResult, 0, 0x1234, []byte("y"))) // tag ignored, as stock
	h, p, err = rs.rd.ReadMsg()
	require.NoError(t, err)
	assert.Equal(t, simpleremote.Header{Size: 33, Op: simpleremote.OpResult, SeqNo: 1}, h)
	assert.Equal(t, []byte("y"), p)
}

// TestConnectFailure: Setup cannot be sent (the controller is gone):
// Attach fails with the strerror text and the Session is notified once.
func TestConnectFailure(t *testing.T) {
	ts, err := newTestSession()
	require.NoError(t, err)
	defer ts.close()
	ex, ctlEnd, err := wiretest.Connect(wiretest.Pipe)
	require.NoError(t, err)
	require.NoError(t, ctlEnd.Close())
	ca := simpleremote.New(ex, nil)
	err = ts.s.Attach(ca, ts.bi)
	assert.EqualError(t, err, "Broken pipe")
	waitDone(t, ca)
	assert.EqualError(t, ca.Err(), "Broken pipe")
	errs := ts.disconnectErrs()
	require.Len(t, errs, 1)
	assert.EqualError(t, errs[0], "Broken pipe")
}

// TestSetupIsFirst: a controller call made concurrently with Connect is
// sent after Setup, never before.
func TestSetupIsFirst(t *testing.T) {
	for range 20 {
		ts, err := newTestSession()
		require.NoError(t, err)
		ex, ctlEnd, err := wiretest.Connect(wiretest.Pipe)
		require.NoError(t, err)
		ca := simpleremote.New(ex, nil)
		go ts.s.CallController(0x42, []byte("early"), func(rt.WrapperResult) {})
		require.NoError(t, ts.s.Attach(ca, ts.bi))
		go ts.s.CallController(0x43, []byte("early"), func(rt.WrapperResult) {})
		rd := simpleremote.NewReader(ctlEnd, 0, 0)
		h, _, err := rd.ReadMsg()
		require.NoError(t, err)
		assert.Equal(t, simpleremote.OpSetup, h.Op)
		_ = ctlEnd.Close()
		waitDone(t, ca)
		ts.close()
	}
}

// TestNothingAfterHangup: calls to the controller and results racing a
// local disconnect never follow the Hangup on the wire; the calls that
// lose the race fail as disconnected.
func TestNothingAfterHangup(t *testing.T) {
	for round := range 20 {
		rs := attachRaw(t, nil)
		var (
			stop   atomic.Bool
			wg     sync.WaitGroup
			failed atomic.Int32
		)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !stop.Load() {
					rs.ts.s.CallController(0x77, []byte("x"), func(r rt.WrapperResult) {
						if r.IsOutOfBandError() {
							failed.Add(1)
						}
					})
				}
			}()
		}
		for i := range 64 { // results in flight too
			require.NoError(t, rs.wr.WriteMsg(simpleremote.OpCallWrapper, uint64(i), rs.sym[symEcho], []byte("r")))
		}
		read := make(chan error, 1)
		go func() {
			hungUp := false
			for {
				h, _, err := rs.rd.ReadMsg()
				if err == io.EOF {
					read <- nil
					return
				}
				if err != nil {
					read <- err
					return
				}
				if hungUp {
					read <- fmt.Errorf("round %d: %v after Hangup", round, h)
					return
				}
				hungUp = h.Op == simpleremote.OpHangup
			}
		}()
		for rs.ca.Pending() == 0 { // the callers are running
			time.Sleep(100 * time.Microsecond)
		}
		time.Sleep(time.Duration(round%5) * time.Millisecond)
		rs.ts.s.Detach(nil)
		waitDone(t, rs.ca)
		stop.Store(true)
		wg.Wait()
		select {
		case err := <-read:
			require.NoError(t, err)
		case <-time.After(waitLong):
			t.Fatal("the output did not end")
		}
		assert.Positive(t, failed.Load(), "round %d", round)
		assert.NoError(t, rs.ca.Err())
	}
}
