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
//     also crosses to a worker goroutine and back;
//   - path=loopback-borrowing and path=loopback-goroutine-borrowing: the
//     loopback paths with the handler registered with rt.BorrowArgs, so
//     the Session recycles the call record and its ReturnFunc.
//
// Allocations per call: the caller's argument buffer and result callback
// (rt.Call2), the handler's result buffer, and — for an owning handler
// only — the Session's call record and its bound ReturnFunc.
// TestWrapperCallAllocs pins them.
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
	for _, borrow := range []bool{false, true} {
		suffix, opts := "", []rt.WrapperOption(nil)
		if borrow {
			suffix, opts = "-borrowing", []rt.WrapperOption{rt.BorrowArgs}
		}
		b.Run("path=loopback"+suffix, func(b *testing.B) {
			s := rt.NewSession(info, rt.InlineRunner{}, nil)
			defer s.Close()
			run(b, loopbackCaller(b, s, handler, opts), false)
		})
		b.Run("path=loopback-goroutine"+suffix, func(b *testing.B) {
			r := rt.NewGoRunner(0)
			defer r.Close()
			s := rt.NewSession(info, r, nil)
			defer s.Close()
			run(b, loopbackCaller(b, s, handler, opts), true)
		})
	}
}

func loopbackCaller(tb testing.TB, s *rt.Session, fn rt.WrapperFunc, opts []rt.WrapperOption) rt.Caller {
	addr := s.RegisterWrapper(fn, opts...)
	l := rt.NewLoopback(nil)
	if err := s.Attach(l, nil); err != nil {
		tb.Fatal(err)
	}
	return l.Controller().Caller(addr)
}

func run(b *testing.B, c rt.Caller, async bool) {
	b.ReportAllocs()
	call := newAdder(c, async)
	var i int64
	for b.Loop() {
		i++
		if got, err := call.add(i); err != nil || got != i+1 {
			b.Fatalf("add(%d, 1) = %d, %v", i, got, err)
		}
	}
}

// adder makes typed calls with one result callback for all of them, so
// that the benchmark loop itself allocates nothing.
type adder struct {
	c      rt.Caller
	async  bool
	done   chan struct{}
	got    int64
	err    error
	result func(int64, error)
}

func newAdder(c rt.Caller, async bool) *adder {
	a := &adder{c: c, async: async, done: make(chan struct{}, 1)}
	a.result = func(v int64, err error) {
		a.got, a.err = v, err
		if a.async {
			a.done <- struct{}{}
		}
	}
	return a
}

func (a *adder) add(i int64) (int64, error) {
	rt.Call2(a.c, addSig, i, 1, a.result)
	if a.async {
		<-a.done
	}
	return a.got, a.err
}

// TestWrapperCallAllocs pins the allocations of one typed call through
// the loopback controller: 2 on the caller's side (rt.Call2's argument
// buffer and its result callback), 1 for the handler's result buffer,
// and 2 more (the call record and its ReturnFunc) only when the handler
// owns its arguments. Before the borrow opt-in and the recycled call
// records, every call cost 8 (see BenchmarkWrapperCall's history).
func TestWrapperCallAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops objects at random under the race detector")
	}
	info, err := rt.NewProcessInfo("x86_64-pc-linux-gnu", 4096, "")
	if err != nil {
		t.Fatal(err)
	}
	handler := rt.Handle2(addSig, add)
	for _, tc := range []struct {
		name string
		opts []rt.WrapperOption
		want float64
	}{{"owning", nil, 5}, {"borrowing", []rt.WrapperOption{rt.BorrowArgs}, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			s := rt.NewSession(info, rt.InlineRunner{}, nil)
			defer s.Close()
			a := newAdder(loopbackCaller(t, s, handler, tc.opts), false)
			var i int64
			n := testing.AllocsPerRun(1000, func() {
				i++
				if got, err := a.add(i); err != nil || got != i+1 {
					t.Fatalf("add(%d, 1) = %d, %v", i, got, err)
				}
			})
			if n != tc.want {
				t.Errorf("%v allocations per call, want %v", n, tc.want)
			}
		})
	}
}
