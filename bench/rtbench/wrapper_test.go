package rtbench

import (
	"testing"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/sps"
)

var addSig = sps.Func2[int64, int64, int64]{Arg1: sps.I64, Arg2: sps.I64, Ret: sps.I64}

func add(_ *rt.Session, a, b int64) int64 { return a + b }

// BenchmarkWrapperCall: one typed add(i, 1) call per op.
//
//   - path=direct: the handler called through rt.DirectCaller (encode,
//     decode, no Session machinery) — the reference;
//   - path=loopback: the loopback controller calls the executor wrapper by
//     address: keepalive token, function-table lookup, Task, inline
//     dispatch, result routed back through the ControllerAccess;
//   - path=loopback-goroutine: the same with the GoRunner, so each call
//     also crosses to a worker goroutine and back.
func BenchmarkWrapperCall(b *testing.B) {
	info, err := rt.NewProcessInfo("x86_64-pc-linux-gnu", 4096, "")
	if err != nil {
		b.Fatal(err)
	}
	handler := rt.Handle2(addSig, add)

	b.Run("path=direct", func(b *testing.B) {
		s := rt.NewSession(info, rt.InlineRunner{}, nil)
		defer s.Close()
		run(b, rt.DirectCaller(s, handler), false)
	})
	b.Run("path=loopback", func(b *testing.B) {
		s := rt.NewSession(info, rt.InlineRunner{}, nil)
		defer s.Close()
		fn := s.RegisterWrapper(handler)
		l := rt.NewLoopback(nil)
		if err := s.Attach(l, nil); err != nil {
			b.Fatal(err)
		}
		run(b, l.Controller().Caller(fn), false)
	})
	b.Run("path=loopback-goroutine", func(b *testing.B) {
		r := rt.NewGoRunner(0)
		defer r.Close()
		s := rt.NewSession(info, r, nil)
		defer s.Close()
		fn := s.RegisterWrapper(handler)
		l := rt.NewLoopback(nil)
		if err := s.Attach(l, nil); err != nil {
			b.Fatal(err)
		}
		run(b, l.Controller().Caller(fn), true)
	})
}

func run(b *testing.B, c rt.Caller, async bool) {
	b.ReportAllocs()
	done := make(chan struct{}, 1)
	var i int64
	for b.Loop() {
		i++
		var got int64
		var gotErr error
		rt.Call2(c, addSig, i, 1, func(v int64, err error) {
			got, gotErr = v, err
			if async {
				done <- struct{}{}
			}
		})
		if async {
			<-done
		}
		if gotErr != nil || got != i+1 {
			b.Fatalf("add(%d, 1) = %d, %v", i, got, gotErr)
		}
	}
}
