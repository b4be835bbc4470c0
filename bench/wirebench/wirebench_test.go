package wirebench

import (
	"context"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const replySize = 32 // a Result header with an empty payload

var calls = []struct {
	name  string
	size  int
	owned bool // the wrapper owns its arguments (the default), so the CA cannot recycle them
}{
	{"empty", 0, false},
	// args8 is the size of LLVM's empty call (an empty sequence): over
	// tcp-nagle its payload waits for the ACK of its header.
	{"args8", 8, false},
	{"write1MiB", 1 << 20, false},
	{"write1MiB-owned", 1 << 20, true},
}

// BenchmarkRoundTrip measures one call through the whole stack: wiretest
// Controller -> OS transport -> simpleremote CA -> Session dispatch
// (GoRunner) -> wrapper -> Result -> Controller.
func BenchmarkRoundTrip(b *testing.B) {
	for _, tr := range []wiretest.Transport{wiretest.Pipe, wiretest.Unix, wiretest.TCP, wiretest.TCPNagle} {
		for _, c := range calls {
			b.Run("transport="+string(tr)+"/call="+c.name, func(b *testing.B) {
				benchRoundTrip(b, tr, c.size, c.owned)
			})
		}
	}
}

func benchRoundTrip(b *testing.B, tr wiretest.Transport, size int, owned bool) {
	info, err := rt.DetectProcessInfo()
	if err != nil {
		b.Fatal(err)
	}
	runner := rt.NewGoRunner(0)
	defer runner.Close()
	s := rt.NewSession(info, runner, func(_ *rt.Session, err error) { b.Error(err) })
	defer s.Close()
	var opts []rt.WrapperOption
	if !owned {
		opts = append(opts, rt.BorrowArgs) // as the bootstrap wrappers are
	}
	nop := s.RegisterWrapper(func(_ *rt.Session, _ []byte, ret rt.ReturnFunc) { ret(rt.EmptyResult()) }, opts...)
	ctl, ca, err := wiretest.Attach(s, nil, tr, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := ctl.Finish(context.Background()); err != nil {
			b.Error(err)
		}
		<-ca.Done()
	}()
	args := make([]byte, size)
	for i := range args {
		args[i] = byte(i)
	}
	ctx := context.Background()
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		r, err := ctl.Call(ctx, nop, args)
		if err != nil || len(r) != 0 {
			b.Fatalf("call: %q, %v", r, err)
		}
	}
}

var sizes = []struct {
	name string
	n    int
}{
	{"32B", 32},
	{"1MiB", 1 << 20},
}

// BenchmarkPipePingPong is the floor of BenchmarkRoundTrip over pipes: a
// request of size bytes, fully read, answered with 32 bytes.
func BenchmarkPipePingPong(b *testing.B) {
	for _, sz := range sizes {
		b.Run("size="+sz.name, func(b *testing.B) {
			reqR, reqW, err := os.Pipe()
			if err != nil {
				b.Fatal(err)
			}
			repR, repW, err := os.Pipe()
			if err != nil {
				b.Fatal(err)
			}
			pingPong(b, reqW, repR, reqR, repW, sz.n)
		})
	}
}

// BenchmarkSocketPingPong is the same floor over Unix and TCP sockets.
func BenchmarkSocketPingPong(b *testing.B) {
	for _, tr := range []wiretest.Transport{wiretest.Unix, wiretest.TCP} {
		for _, sz := range sizes {
			b.Run("transport="+string(tr)+"/size="+sz.name, func(b *testing.B) {
				ex, ctl, err := wiretest.Connect(tr)
				if err != nil {
					b.Fatal(err)
				}
				pingPong(b, ctl, ctl, ex, ex, sz.n)
			})
		}
	}
}

// pingPong: the client writes n bytes to cw and reads a 32-byte reply from
// cr; a server goroutine reads n bytes from sr and replies on sw.
func pingPong(b *testing.B, cw io.Writer, cr io.Reader, sr io.Reader, sw io.Writer, n int) {
	pingPongServer(b, cw, cr, sr, sw, n, false)
}

// pingPongServer is pingPong; with fresh the server reads each request
// into a newly allocated buffer.
func pingPongServer(b *testing.B, cw io.Writer, cr io.Reader, sr io.Reader, sw io.Writer, n int, fresh bool) {
	closeAll := func() {
		for _, c := range []any{cw, cr, sr, sw} {
			if cl, ok := c.(io.Closer); ok {
				_ = cl.Close()
			}
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		req := make([]byte, n)
		rep := make([]byte, replySize)
		for {
			if fresh {
				req = make([]byte, n)
			}
			if _, err := io.ReadFull(sr, req); err != nil {
				return
			}
			if _, err := sw.Write(rep); err != nil {
				return
			}
		}
	}()
	req := make([]byte, n)
	rep := make([]byte, replySize)
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cw.Write(req); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(cr, rep); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	closeAll()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		b.Fatal("ping-pong server did not stop")
	}
}

// BenchmarkPipePingPongFresh is BenchmarkPipePingPong/size=1MiB with a
// receiver that reads every request into a fresh buffer, as the executor
// must (payloads handed to the Session are never reused).
func BenchmarkPipePingPongFresh(b *testing.B) {
	b.Run("size=1MiB", func(b *testing.B) {
		reqR, reqW, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		repR, repW, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		pingPongServer(b, reqW, repR, reqR, repW, 1<<20, true)
	})
}

var sink []byte

// BenchmarkAlloc is the cost of a fresh 1 MiB Go allocation (zeroed, and
// with its share of garbage collection) on this machine.
func BenchmarkAlloc(b *testing.B) {
	b.Run("size=1MiB", func(b *testing.B) {
		b.SetBytes(1 << 20)
		b.ReportAllocs()
		for b.Loop() {
			sink = make([]byte, 1<<20)
		}
		sink = nil
	})
}

var _ simpleremote.Conn = (*net.TCPConn)(nil)
