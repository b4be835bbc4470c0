package rt

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// guardService checks, in OnShutdown, that no keepalive-guarded call is
// running.
type guardService struct {
	t              *testing.T
	inGuard        *atomic.Int64
	shutdownActive atomic.Bool
	shutdowns      atomic.Int32
}

func (g *guardService) OnDetach(done func(), _ bool) { done() }

func (g *guardService) OnShutdown(done func()) {
	g.shutdownActive.Store(true)
	if n := g.inGuard.Load(); n != 0 {
		g.t.Errorf("onShutdown started with %d guarded calls running", n)
	}
	g.shutdowns.Add(1)
	runtime.Gosched()
	done()
}

// TestShutdownUnderLoad: many goroutines make keepalive-guarded calls and
// the controller keeps calling a wrapper while shutdown is requested.
// Checks: a denied call never runs its function, once denied a goroutine is
// never admitted again, onShutdown never overlaps a guarded call, services
// shut down exactly once, and nothing leaks (goleak in TestMain).
func TestShutdownUnderLoad(t *testing.T) {
	var admitted, denied int64
	for _, procs := range []int{1, 2, 4} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			for round := range 10 {
				a, d := shutdownUnderLoadRound(t, round)
				admitted += a
				denied += d
			}
		}()
	}
	// The race must really have happened: calls admitted before the close
	// and refused after it.
	t.Logf("admitted %d, denied %d", admitted, denied)
	if admitted == 0 || denied == 0 {
		t.Errorf("no contention exercised: admitted %d, denied %d", admitted, denied)
	}
}

func shutdownUnderLoadRound(t *testing.T, round int) (admitted, denied int64) {
	r := NewGoRunner(0)
	defer r.Close()
	var log errorLog
	s := NewSession(mockProcessInfo(), r, log.report)
	var inGuard atomic.Int64
	svc := &guardService{t: t, inGuard: &inGuard}
	s.AddService(svc)

	guarded := func() {
		inGuard.Add(1)
		if svc.shutdownActive.Load() {
			t.Error("guarded call runs while onShutdown is active")
		}
		runtime.Gosched()
		inGuard.Add(-1)
	}
	fn := s.RegisterWrapper(func(_ *Session, _ []byte, ret ReturnFunc) {
		guarded()
		ret(EmptyResult())
	})
	l := NewLoopback(nil)
	if err := s.Attach(l, nil); err != nil {
		t.Fatal(err)
	}
	ctl := l.Controller()

	const workers = 8
	var wg sync.WaitGroup
	start := make(chan struct{})
	var nAdmitted, nDenied atomic.Int64
	for w := range workers {
		wg.Go(func() {
			<-start
			wasDenied := false
			for i := 0; i < 2000; i++ {
				if w%4 == 0 {
					// Controller-initiated calls; they complete (possibly
					// with "disconnected") or are failed by the drain.
					done := make(chan struct{})
					ctl.CallWrapper(fn, nil, func(WrapperResult) { close(done) })
					<-done
					if s.State() >= StateDetached {
						return
					}
					continue
				}
				ran := false
				ok := s.CallWithKeepalive(func() { ran = true; guarded() })
				if ok != ran {
					t.Errorf("CallWithKeepalive returned %v but ran=%v", ok, ran)
				}
				if ok {
					nAdmitted.Add(1)
					if wasDenied {
						t.Error("admitted after a denial")
					}
				} else {
					nDenied.Add(1)
					wasDenied = true
					v, ok2 := CallWithKeepalive(s, func() int { t.Error("denied call ran"); return 1 })
					if ok2 || v != 0 {
						t.Error("generic CallWithKeepalive admitted after denial")
					}
					return
				}
			}
		})
	}
	close(start)
	time.Sleep(time.Duration(round%3) * time.Millisecond)
	shutdownDone := make(chan struct{})
	s.Shutdown(func() { close(shutdownDone) })
	select {
	case <-shutdownDone:
	case <-time.After(20 * time.Second):
		t.Fatal("shutdown did not complete under load")
	}
	wg.Wait()
	s.Wait()
	if n := svc.shutdowns.Load(); n != 1 {
		t.Errorf("service shut down %d times", n)
	}
	if msgs := log.get(); len(msgs) != 0 {
		t.Errorf("errors reported: %v", msgs)
	}
	return nAdmitted.Load(), nDenied.Load()
}

// orderService records its hooks for TestAddServiceRacingShutdown.
type orderService struct {
	mu  sync.Mutex
	ops []string
}

func (o *orderService) OnDetach(done func(), _ bool) {
	o.mu.Lock()
	o.ops = append(o.ops, "detach")
	o.mu.Unlock()
	done()
}

func (o *orderService) OnShutdown(done func()) {
	o.mu.Lock()
	o.ops = append(o.ops, "shutdown")
	o.mu.Unlock()
	done()
}

// TestAddServiceRacingShutdown: services added from many goroutines while
// shutdown runs each get exactly one OnDetach followed by exactly one
// OnShutdown, whichever side of each transition they land on.
func TestAddServiceRacingShutdown(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for range 50 {
		s := NewSession(mockProcessInfo(), InlineRunner{}, noErrors(t))
		var mu sync.Mutex
		var svcs []*orderService
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for range 25 {
					svc := &orderService{}
					mu.Lock()
					svcs = append(svcs, svc)
					mu.Unlock()
					s.AddService(svc)
				}
			})
		}
		s.Shutdown(nil)
		wg.Wait()
		s.Wait()
		for i, svc := range svcs {
			svc.mu.Lock()
			if len(svc.ops) != 2 || svc.ops[0] != "detach" || svc.ops[1] != "shutdown" {
				t.Fatalf("service %d saw %v", i, svc.ops)
			}
			svc.mu.Unlock()
		}
	}
}
