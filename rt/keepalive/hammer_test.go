package keepalive

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// TestHammerCloseRace races many acquiring/releasing goroutines against
// Close under several GOMAXPROCS settings and checks the three guarantees:
// no Acquire that starts after Close returned succeeds, completion runs
// exactly once, and never while a token is held. Each worker also writes a
// plain (non-atomic) variable while holding its token and the completion
// callback reads them all: the race detector then checks that every
// Release synchronizes before completion.
func TestHammerCloseRace(t *testing.T) {
	rounds := 300
	if testing.Short() {
		rounds = 50
	}
	for _, procs := range []int{1, 2, 4, 8} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			for r := range rounds {
				hammerRound(t, 4+r%13)
			}
		})
	}
}

func hammerRound(t *testing.T, workers int) {
	g := New()
	var (
		held        atomic.Int64
		completions atomic.Int32
		closeDone   atomic.Bool
		lateAcquire atomic.Int32
		writes      = make([]int, workers) // written only while holding a token
		wg          sync.WaitGroup
		start       = make(chan struct{})
	)
	g.AddOnComplete(func() {
		completions.Add(1)
		if h := held.Load(); h != 0 {
			t.Errorf("completion ran with %d tokens held", h)
		}
		sum := 0
		for _, w := range writes {
			sum += w
		}
		_ = sum
	})
	for w := range workers {
		wg.Go(func() {
			<-start
			for i := 0; ; i++ {
				after := closeDone.Load()
				tok, ok := g.Acquire()
				if !ok {
					return
				}
				if after {
					lateAcquire.Add(1)
				}
				held.Add(1)
				writes[w]++
				if i%7 == 0 {
					runtime.Gosched()
				}
				// Nested acquire while holding: must fail once closed too.
				if tok2, ok := tok.Clone(); ok {
					tok2.Release()
				}
				held.Add(-1)
				tok.Release()
			}
		})
	}
	close(start)
	runtime.Gosched()
	g.Close()
	closeDone.Store(true)
	wg.Wait()
	if n := lateAcquire.Load(); n != 0 {
		t.Errorf("%d acquires succeeded after Close returned", n)
	}
	if n := completions.Load(); n != 1 {
		t.Errorf("completion ran %d times, want 1", n)
	}
	if _, ok := g.Acquire(); ok {
		t.Error("acquire succeeded on a completed group")
	}
}

// TestHammerConcurrentClosers: several goroutines close at once while
// tokens churn and callbacks are added; each callback runs exactly once.
func TestHammerConcurrentClosers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for range 200 {
		g := New()
		const adders = 4
		var runs [adders]atomic.Int32
		var wg sync.WaitGroup
		for i := range adders {
			wg.Go(func() { g.AddOnComplete(func() { runs[i].Add(1) }) })
		}
		for range 3 {
			wg.Go(func() {
				for {
					tok, ok := g.Acquire()
					if !ok {
						return
					}
					tok.Release()
				}
			})
		}
		var lateAcquire atomic.Int32
		for range 3 {
			wg.Go(func() {
				g.Close()
				// Whichever Close returned, acquisition is over.
				if tok, ok := g.Acquire(); ok {
					lateAcquire.Add(1)
					tok.Release()
				}
			})
		}
		wg.Wait()
		if n := lateAcquire.Load(); n != 0 {
			t.Fatalf("%d acquires succeeded after a Close returned", n)
		}
		for i := range runs {
			if n := runs[i].Load(); n != 1 {
				t.Fatalf("callback %d ran %d times", i, n)
			}
		}
	}
}

// TestHammerClosedMeansSealed: a goroutine that sees Closed report true
// while another is still inside Close must find Acquire refused (a pin's
// user checks Closed, then calls; the release that closed it waits for no
// token taken after).
func TestHammerClosedMeansSealed(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	late := 0
	for range 2000 {
		g := New()
		done := make(chan struct{})
		go func() { g.Close(); close(done) }()
		for !g.Closed() {
		}
		if tok, ok := g.Acquire(); ok {
			late++
			tok.Release()
		}
		<-done
	}
	if late != 0 {
		t.Fatalf("%d of 2000 acquires succeeded after Closed reported true", late)
	}
}

// acquireAtDepth calls Acquire from depth frames below the caller, so the
// stack-address hint picks another stripe for each depth.
//
//go:noinline
func acquireAtDepth(g *Group, depth int) (Token, bool) {
	var pad [256]byte
	if depth > 0 {
		tok, ok := acquireAtDepth(g, depth-1)
		pad[depth%len(pad)] = byte(depth)
		return tok, ok && pad[0] == 0
	}
	return g.Acquire()
}

// TestHammerDenialIsFinal: goroutines acquire from varying stack depths
// (so from varying stripes) while Close seals the stripes one by one; a
// goroutine once denied must never be admitted again.
func TestHammerDenialIsFinal(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	late := 0
	for range 500 {
		g := New()
		start := make(chan struct{})
		var wg sync.WaitGroup
		var mu sync.Mutex
		for range 4 {
			wg.Go(func() {
				<-start
				denied := false
				for i := 0; i < 4000; i++ {
					tok, ok := acquireAtDepth(g, i%32)
					if !ok {
						denied = true
						continue
					}
					tok.Release()
					if denied {
						mu.Lock()
						late++
						mu.Unlock()
						return
					}
				}
			})
		}
		close(start)
		runtime.Gosched()
		g.Close()
		wg.Wait()
	}
	if late != 0 {
		t.Fatalf("%d goroutines were admitted after a denial", late)
	}
}
