package wiretest_test

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/sps"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// fakeExec is a scripted executor: the test writes its frames.
type fakeExec struct {
	conn io.ReadWriteCloser
	rd   *simpleremote.Reader
	wr   *simpleremote.Writer
}

func newFake(t *testing.T) (*fakeExec, io.ReadWriteCloser) {
	t.Helper()
	ex, ctl, err := wiretest.Connect(wiretest.Pipe)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ex.Close() })
	return &fakeExec{conn: ex, rd: simpleremote.NewReader(ex, 0, 0), wr: simpleremote.NewWriter(ex)}, ctl
}

var setupInfo = sps.SetupInfo{
	Triple:   "x86_64-pc-linux-gnu",
	PageSize: 4096,
	Symbols:  []sps.BootstrapSymbol{{Name: "fn", Addr: 0x1000}, {Name: "other", Addr: 0x2000}},
}

func TestControllerSetupChecks(t *testing.T) {
	good := sps.Marshal(sps.SetupInfoCodec, setupInfo)
	dup := sps.SetupInfo{Triple: "t", Symbols: []sps.BootstrapSymbol{{Name: "a", Addr: 1}, {Name: "a", Addr: 2}}}
	for _, tc := range []struct {
		name  string
		frame []byte
		want  string
	}{
		{"seq not zero", wiretest.Frame(simpleremote.OpSetup, 1, 0, good), "Setup packet SeqNo not zero"},
		{"tag not zero", wiretest.Frame(simpleremote.OpSetup, 0, 8, good), "Setup packet TagAddr not zero"},
		{"undecodable", wiretest.Frame(simpleremote.OpSetup, 0, 0, []byte{1, 2}), "Could not deserialize setup message"},
		{"duplicate names", wiretest.SetupFrame(dup), "Could not deserialize setup message"},
		{"not setup", wiretest.ResultFrame(0, nil), "first message is Result"},
		{"EOF", nil, "before Setup"},
		{"garbage", wiretest.RawHeader(3, 0, 0, 0), "Message size too small"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fe, ctl := newFake(t)
			if tc.frame != nil {
				require.NoError(t, fe.wr.WriteRaw(tc.frame))
			}
			require.NoError(t, fe.conn.Close())
			_, err := wiretest.New(ctl, nil)
			require.ErrorIs(t, err, wiretest.ErrSetup)
			assert.ErrorContains(t, err, tc.want)
		})
	}
	t.Run("timeout", func(t *testing.T) {
		_, ctl := newFake(t)
		start := time.Now()
		_, err := wiretest.New(ctl, &wiretest.Options{SetupTimeout: 50 * time.Millisecond})
		require.ErrorIs(t, err, wiretest.ErrSetup)
		assert.Less(t, time.Since(start), 5*time.Second)
	})
}

func newCtl(t *testing.T) (*fakeExec, *wiretest.Controller) {
	t.Helper()
	fe, conn := newFake(t)
	require.NoError(t, fe.wr.WriteRaw(wiretest.SetupFrame(setupInfo)))
	ctl, err := wiretest.New(conn, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ctl.Close() })
	return fe, ctl
}

func TestControllerViolations(t *testing.T) {
	for _, tc := range []struct {
		name  string
		frame func(seq uint64) []byte
		want  string
	}{
		{"result tag", func(seq uint64) []byte { return wiretest.Frame(simpleremote.OpResult, seq, 1, nil) }, "Unexpected TagAddr in result message"},
		{"unknown seq", func(uint64) []byte { return wiretest.ResultFrame(77, nil) }, "No call for sequence number 77"},
		{"second setup", func(uint64) []byte { return wiretest.SetupFrame(setupInfo) }, "second Setup message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fe, ctl := newCtl(t)
			call, err := ctl.Start(ctl.MustSymbol("fn"), []byte("a"))
			require.NoError(t, err)
			h, p, err := fe.rd.ReadMsg()
			require.NoError(t, err)
			assert.Equal(t, simpleremote.Header{Size: 33, Op: simpleremote.OpCallWrapper, SeqNo: 0, Tag: 0x1000}, h)
			assert.Equal(t, []byte("a"), p)
			require.NoError(t, fe.wr.WriteRaw(tc.frame(h.SeqNo)))
			<-ctl.Done()
			var ve *wiretest.ViolationError
			require.ErrorAs(t, ctl.Err(), &ve)
			assert.Equal(t, tc.want, ve.Msg)
			_, err = call.Result()
			assert.ErrorIs(t, err, wiretest.ErrDisconnected)
			_, err = ctl.Start(0x1000, nil)
			assert.ErrorIs(t, err, wiretest.ErrDisconnected)
		})
	}
}

func TestControllerIncomingAndHangup(t *testing.T) {
	fe, ctl := newCtl(t)
	// Unhandled tag: empty reply.
	require.NoError(t, fe.wr.WriteMsg(simpleremote.OpCallWrapper, 0, 0x99, []byte("x")))
	h, p, err := fe.rd.ReadMsg()
	require.NoError(t, err)
	assert.Equal(t, simpleremote.Header{Size: 32, Op: simpleremote.OpResult, SeqNo: 0}, h)
	assert.Nil(t, p)
	// Queue: answer later, twice is refused; overflow answers empty.
	q := ctl.Queue(0x50, 1)
	require.NoError(t, fe.wr.WriteMsg(simpleremote.OpCallWrapper, 1, 0x50, []byte("q1")))
	for len(q) == 0 {
		time.Sleep(time.Millisecond)
	}
	require.NoError(t, fe.wr.WriteMsg(simpleremote.OpCallWrapper, 2, 0x50, []byte("q2")))
	h, _, err = fe.rd.ReadMsg() // q2 overflowed: answered at once
	require.NoError(t, err)
	assert.Equal(t, uint64(2), h.SeqNo)
	in := <-q
	assert.Equal(t, uint64(1), in.Seq)
	assert.Equal(t, sps.Addr(0x50), in.Tag)
	assert.Equal(t, []byte("q1"), in.Args)
	require.NoError(t, in.Reply([]byte("late")))
	assert.ErrorIs(t, in.Reply(nil), wiretest.ErrAlreadyReplied)
	h, p, err = fe.rd.ReadMsg()
	require.NoError(t, err)
	assert.Equal(t, uint64(1), h.SeqNo)
	assert.Equal(t, []byte("late"), p)
	// Typed handler.
	sig := sps.Func1[uint64, uint64]{Arg1: sps.U64, Ret: sps.U64}
	wiretest.Handle1(ctl, 0x60, sig, func(v uint64) uint64 { return v * 2 })
	require.NoError(t, fe.wr.WriteMsg(simpleremote.OpCallWrapper, 3, 0x60, sps.Marshal(sps.U64, 21)))
	_, p, err = fe.rd.ReadMsg()
	require.NoError(t, err)
	assert.Equal(t, sps.Marshal(sps.U64, 42), p)
	require.NoError(t, fe.wr.WriteMsg(simpleremote.OpCallWrapper, 4, 0x60, []byte{1})) // bad args
	_, p, err = fe.rd.ReadMsg()
	require.NoError(t, err)
	assert.Empty(t, p)
	// Executor hangs up: orderly.
	require.NoError(t, fe.wr.WriteMsg(simpleremote.OpHangup, 0, 0, []byte{0}))
	<-ctl.Done()
	assert.NoError(t, ctl.Err())
	hp, ok := ctl.HangupPayload()
	assert.True(t, ok)
	assert.Equal(t, []byte{0}, hp)
}

// TestTypedCallsInProcess: Call0..Call3 against an rt.Session.
func TestTypedCallsInProcess(t *testing.T) {
	info, err := rt.DetectProcessInfo()
	require.NoError(t, err)
	runner := rt.NewGoRunner(0)
	defer runner.Close()
	s := rt.NewSession(info, runner, nil)
	defer s.Close()
	sig0 := sps.Func0[uint64]{Ret: sps.U64}
	sig1 := sps.Func1[string, sps.Expected[string]]{Arg1: sps.String, Ret: sps.ExpectedOf(sps.String)}
	sig2 := sps.Func2[int64, int64, int64]{Arg1: sps.I64, Arg2: sps.I64, Ret: sps.I64}
	sig3 := sps.Func3[uint8, uint16, uint32, uint64]{Arg1: sps.U8, Arg2: sps.U16, Arg3: sps.U32, Ret: sps.U64}
	f0 := s.RegisterWrapper(rt.Handle0(sig0, func(*rt.Session) uint64 { return 7 }))
	f1 := s.RegisterWrapper(rt.HandleExpected1(sig1, func(_ *rt.Session, a string) (string, error) {
		if a == "" {
			return "", errors.New("empty")
		}
		return "hi " + a, nil
	}))
	f2 := s.RegisterWrapper(rt.Handle2(sig2, func(_ *rt.Session, a, b int64) int64 { return a - b }))
	f3 := s.RegisterWrapper(rt.Handle3(sig3, func(_ *rt.Session, a uint8, b uint16, c uint32) uint64 {
		return uint64(a) + uint64(b) + uint64(c)
	}))
	for _, tr := range wiretest.Transports {
		t.Run(string(tr), func(t *testing.T) {
			if tr != wiretest.Pipe {
				t.Skip("one transport suffices here; simpleremote's tests cover all")
			}
			ctl, ca, err := wiretest.Attach(s, nil, tr, nil, nil)
			require.NoError(t, err)
			ctx := ctxT(t)
			v0, err := wiretest.Call0(ctx, ctl, f0, sig0)
			require.NoError(t, err)
			assert.Equal(t, uint64(7), v0)
			v1, err := wiretest.Call1(ctx, ctl, f1, sig1, "there")
			require.NoError(t, err)
			assert.Equal(t, "hi there", v1.Value)
			v1, err = wiretest.Call1(ctx, ctl, f1, sig1, "")
			require.NoError(t, err)
			assert.EqualError(t, v1.Err, "empty")
			v2, err := wiretest.Call2(ctx, ctl, f2, sig2, 5, 8)
			require.NoError(t, err)
			assert.Equal(t, int64(-3), v2)
			v3, err := wiretest.Call3(ctx, ctl, f3, sig3, 1, 2, 3)
			require.NoError(t, err)
			assert.Equal(t, uint64(6), v3)
			// An out-of-band error (bad arguments) is an empty payload.
			_, err = wiretest.Call2(ctx, ctl, f0, sps.Func2[int64, int64, uint64]{Arg1: sps.I64, Arg2: sps.I64, Ret: sps.U64}, 1, 2)
			require.NoError(t, err, "f0 ignores arguments")
			_, err = wiretest.Call0(ctx, ctl, f2, sps.Func0[int64]{Ret: sps.I64})
			assert.ErrorIs(t, err, wiretest.ErrDeserializeResult)
			_, err = ctl.CallName(ctx, "nope", nil)
			assert.Error(t, err)
			require.NoError(t, ctl.Finish(ctx))
			<-ca.Done()
			assert.NoError(t, ca.Err())
		})
	}
}

func TestStartExecutorFailures(t *testing.T) {
	_, err := wiretest.StartExecutor("/nonexistent/executor", nil)
	assert.Error(t, err)
	_, err = wiretest.StartExecutor("/bin/true", &wiretest.ExecOptions{InFD: 1, OutFD: 4})
	assert.Error(t, err)
	// Exits without Setup: the error carries its status and stderr.
	_, err = wiretest.StartExecutor("/bin/sh", &wiretest.ExecOptions{Args: nil, Env: nil})
	require.ErrorIs(t, err, wiretest.ErrSetup)
	assert.ErrorContains(t, err, "exit status")
	if _, serr := os.Stat("/bin/sh"); serr != nil {
		t.Skip("no /bin/sh")
	}
}
