package rt_test

import (
	"fmt"
	"log"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/sps"
)

// greeter is a host-defined Service with a controller-callable method.
type greeter struct {
	greeting string
}

func (g *greeter) OnDetach(done func(), shutdownRequested bool) {
	fmt.Println("greeter: detached, shutdown requested:", shutdownRequested)
	done()
}

func (g *greeter) OnShutdown(done func()) {
	fmt.Println("greeter: shut down")
	done()
}

// greetSig is SPSExpected<SPSString>(SPSExecutorAddr instance, SPSString).
var greetSig = sps.Func2[sps.Addr, string, sps.Expected[string]]{
	Arg1: sps.AddrCodec, Arg2: sps.String, Ret: sps.ExpectedOf(sps.String),
}

// addSig is int64(int64, int64).
var addSig = sps.Func2[int64, int64, int64]{Arg1: sps.I64, Arg2: sps.I64, Ret: sps.I64}

// Example embeds a Session in a host: a Service with a method-style
// wrapper, a plain wrapper function, both published as bootstrap symbols,
// and an in-process controller (the loopback ControllerAccess) that looks
// them up and calls them.
func Example() {
	info, err := rt.DetectProcessInfo()
	if err != nil {
		log.Fatal(err)
	}
	runner := rt.NewGoRunner(0)
	defer runner.Close() // after the Session: the runner must outlive it

	s := rt.NewSession(info, runner, nil)
	g := &greeter{greeting: "hello"}
	s.AddService(g)

	bi, err := rt.DefaultBootstrapInfo(s, func(s *rt.Session, st *rt.SymbolTable) error {
		return st.AddUnique(
			rt.Symbol{Name: "greeter_instance", Addr: s.RegisterInstance(g)},
			rt.Symbol{Name: "greeter_greet", Addr: s.RegisterWrapper(
				rt.HandleMethodExpected1(greetSig, func(_ *rt.Session, g *greeter, name string) (string, error) {
					if name == "" {
						return "", fmt.Errorf("greeter: empty name")
					}
					return g.greeting + ", " + name, nil
				}))},
			rt.Symbol{Name: "add", Addr: s.RegisterWrapper(
				rt.Handle2(addSig, func(_ *rt.Session, a, b int64) int64 { return a + b }))},
		)
	}, nil)
	if err != nil {
		log.Fatal(err)
	}

	s.SetOnDisconnect(func(err error) { fmt.Println("disconnected, error:", err) })
	ca := rt.NewLoopback(nil)
	if err := s.Attach(ca, bi); err != nil {
		log.Fatal(err)
	}

	// The controller side resolves the bootstrap symbols and calls in.
	ctl := ca.Controller()
	inst, _ := ctl.Lookup("greeter_instance")
	greet, _ := ctl.Lookup("greeter_greet")
	add, _ := ctl.Lookup("add")

	res, err := rt.Await(func(done func(sps.Expected[string], error)) {
		rt.Call2(ctl.Caller(greet), greetSig, inst, "world", done)
	})
	fmt.Println(res.Value, res.Err, err)
	res, err = rt.Await(func(done func(sps.Expected[string], error)) {
		rt.Call2(ctl.Caller(greet), greetSig, inst, "", done)
	})
	fmt.Println(res.Err, err)
	sum, err := rt.Await(func(done func(int64, error)) { rt.Call2(ctl.Caller(add), addSig, 40, 2, done) })
	fmt.Println(sum, err)

	s.Close() // detach, wait for keepalives, shut services down
	fmt.Println("state:", s.State())
	// Output:
	// hello, world <nil> <nil>
	// greeter: empty name <nil>
	// 42 <nil>
	// disconnected, error: <nil>
	// greeter: detached, shutdown requested: true
	// greeter: shut down
	// state: Shutdown
}
