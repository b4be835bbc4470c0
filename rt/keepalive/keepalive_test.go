package keepalive

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// completion counts completion-callback runs.
func completion(g *Group) *atomic.Int32 {
	var n atomic.Int32
	g.AddOnComplete(func() { n.Add(1) })
	return &n
}

// The TestTaskGroup_* tests mirror orc-rt's TaskGroupTest.cpp one for one.

func TestTaskGroup_TrivialConstructionAndDestruction(t *testing.T) {
	g := New()
	require.NotNil(t, g)
	assert.False(t, g.Closed())
	assert.False(t, g.Completed())
}

func TestTaskGroup_SingleTokenThenClose(t *testing.T) {
	g := New()
	n := completion(g)
	tok, ok := g.Acquire()
	require.True(t, ok)
	g.Close()
	assert.EqualValues(t, 0, n.Load(), "completed while a token is held")
	tok.Release()
	assert.EqualValues(t, 1, n.Load())
}

func TestTaskGroup_CloseWithNoTokens(t *testing.T) {
	g := New()
	n := completion(g)
	g.Close()
	assert.EqualValues(t, 1, n.Load())
	assert.True(t, g.Completed())
}

func TestTaskGroup_TokenFromClosedGroup(t *testing.T) {
	g := New()
	g.Close()
	tok, ok := g.Acquire()
	assert.False(t, ok)
	assert.False(t, tok.Valid())
}

// TokenFromNullSharedPtr: the Go null group is the zero TokenSource (and
// the zero Token).
func TestTaskGroup_TokenFromNullSharedPtr(t *testing.T) {
	tok, ok := TokenSource{}.Acquire()
	assert.False(t, ok)
	assert.False(t, tok.Valid())
	tok, ok = Token{}.Clone()
	assert.False(t, ok)
	assert.False(t, tok.Valid())
}

// CopyToken: Clone is a second acquire; completion waits for both.
func TestTaskGroup_CopyToken(t *testing.T) {
	g := New()
	n := completion(g)
	t1, ok := g.Acquire()
	require.True(t, ok)
	t2, ok := t1.Clone()
	require.True(t, ok)
	g.Close()
	t1.Release()
	assert.EqualValues(t, 0, n.Load())
	t2.Release()
	assert.EqualValues(t, 1, n.Load())
}

// MoveToken: a Go assignment transfers the token without acquiring; the
// moved-from variable is zeroed by hand, the Go spelling of a move.
func TestTaskGroup_MoveToken(t *testing.T) {
	g := New()
	n := completion(g)
	t1, _ := g.Acquire()
	t2 := t1
	t1 = Token{}
	assert.False(t, t1.Valid())
	assert.True(t, t2.Valid())
	g.Close()
	assert.EqualValues(t, 0, n.Load())
	t2.Release()
	assert.EqualValues(t, 1, n.Load())
}

// CopyAssignmentReleasesOld: T1 = T2 releases group 1 (which completes)
// and acquires group 2.
func TestTaskGroup_CopyAssignmentReleasesOld(t *testing.T) {
	g1, g2 := New(), New()
	n1, n2 := completion(g1), completion(g2)
	t1, _ := g1.Acquire()
	t2, _ := g2.Acquire()
	g1.Close()
	g2.Close()
	t1.Release()
	// Re-acquire from a closed group fails, exactly as upstream's copy.
	_, ok := t2.Clone()
	assert.False(t, ok)
	assert.EqualValues(t, 1, n1.Load())
	assert.EqualValues(t, 0, n2.Load())
	t2.Release()
	assert.EqualValues(t, 1, n2.Load())

	// The open-group case: the copy succeeds and delays completion.
	g3, g4 := New(), New()
	n3, n4 := completion(g3), completion(g4)
	t3, _ := g3.Acquire()
	t4, _ := g4.Acquire()
	g3.Close()
	t3.Release()
	t3, ok = t4.Clone()
	require.True(t, ok)
	assert.Equal(t, g4, t3.Group())
	assert.EqualValues(t, 1, n3.Load())
	g4.Close()
	t4.Release()
	assert.EqualValues(t, 0, n4.Load())
	t3.Release()
	assert.EqualValues(t, 1, n4.Load())
}

func TestTaskGroup_CopyAssignmentFromClosedGroup(t *testing.T) {
	g1, g2 := New(), New()
	n1 := completion(g1)
	t1, _ := g1.Acquire()
	g2.Close()
	var invalid Token
	g1.Close()
	t1.Release()
	t1, ok := invalid.Clone()
	assert.False(t, ok)
	assert.False(t, t1.Valid())
	assert.EqualValues(t, 1, n1.Load())
}

func TestTaskGroup_MoveAssignmentReleasesOld(t *testing.T) {
	g1, g2 := New(), New()
	n1, n2 := completion(g1), completion(g2)
	t1, _ := g1.Acquire()
	t2, _ := g2.Acquire()
	g1.Close()
	g2.Close()
	t1.Release()
	t1, t2 = t2, Token{}
	assert.EqualValues(t, 1, n1.Load())
	assert.False(t, t2.Valid())
	t1.Release()
	assert.EqualValues(t, 1, n2.Load())
}

func TestTaskGroup_SelfCopyAssignment(t *testing.T) {
	g := New()
	tok, _ := g.Acquire()
	src := &tok
	tok = *src // self-assignment through an alias: nothing is acquired or released
	assert.True(t, tok.Valid())
	tok.Release()
}

func TestTaskGroup_SelfMoveAssignment(t *testing.T) {
	g := New()
	tok, _ := g.Acquire()
	p := &tok
	tok = *p
	assert.True(t, tok.Valid())
	tok.Release()
}

func TestTaskGroup_AddOnCompleteAfterCompletion(t *testing.T) {
	g := New()
	g.Close()
	ran := false
	g.AddOnComplete(func() { ran = true })
	assert.True(t, ran)
}

func TestTaskGroup_AddOnCompleteWhileTasksPending(t *testing.T) {
	g := New()
	tok, _ := g.Acquire()
	g.Close()
	ran := false
	g.AddOnComplete(func() { ran = true })
	assert.False(t, ran)
	tok.Release()
	assert.True(t, ran)
}

func TestTaskGroup_MultipleCallbacks(t *testing.T) {
	g := New()
	var order []int
	for i := 1; i <= 3; i++ {
		g.AddOnComplete(func() { order = append(order, i) })
	}
	g.Close()
	assert.Equal(t, []int{1, 2, 3}, order)
}

func TestTaskGroup_MultipleTokens(t *testing.T) {
	g := New()
	n := completion(g)
	var toks [3]Token
	for i := range toks {
		var ok bool
		toks[i], ok = g.Acquire()
		require.True(t, ok)
	}
	g.Close()
	toks[0].Release()
	toks[1].Release()
	assert.EqualValues(t, 0, n.Load())
	toks[2].Release()
	assert.EqualValues(t, 1, n.Load())
}

func TestTaskGroup_CloseIsIdempotent(t *testing.T) {
	g := New()
	n := completion(g)
	g.Close()
	g.Close()
	g.Close()
	assert.EqualValues(t, 1, n.Load())
}

func TestTaskGroup_AcquireAfterCloseViaDirectAPI(t *testing.T) {
	g := New()
	tok, ok := g.Acquire()
	assert.True(t, ok)
	tok.Release()
	g.Close()
	_, ok = g.Acquire()
	assert.False(t, ok)
}

func TestTaskGroup_DirectAPIMatchesRAII(t *testing.T) {
	g := New()
	n := completion(g)
	a, _ := g.Acquire()
	b, _ := g.Acquire()
	g.Close()
	a.Release()
	assert.EqualValues(t, 0, n.Load())
	b.Release()
	assert.EqualValues(t, 1, n.Load())
}

// TokenKeepsTaskGroupAlive: in Go the token's pointer keeps the group
// reachable after every other reference is dropped.
func TestTaskGroup_TokenKeepsTaskGroupAlive(t *testing.T) {
	var n atomic.Int32
	tok := func() Token {
		g := New()
		g.AddOnComplete(func() { n.Add(1) })
		tok, _ := g.Acquire()
		g.Close()
		return tok
	}()
	runtime.GC()
	require.NotNil(t, tok.Group())
	assert.True(t, tok.Group().Closed())
	tok.Release()
	assert.EqualValues(t, 1, n.Load())
}

func TestTaskGroup_TokenFromTokenSource(t *testing.T) {
	g := New()
	n := completion(g)
	src := g.Source()
	tok, ok := src.Acquire()
	require.True(t, ok)
	g.Close()
	assert.EqualValues(t, 0, n.Load())
	tok.Release()
	assert.EqualValues(t, 1, n.Load())
}

func TestTaskGroup_TokenFromClosedGroupViaTokenSource(t *testing.T) {
	g := New()
	src := g.Source()
	g.Close()
	_, ok := src.Acquire()
	assert.False(t, ok)
}

func TestTaskGroup_TokenSourceKeepsTaskGroupAlive(t *testing.T) {
	var n atomic.Int32
	src := func() TokenSource {
		g := New()
		g.AddOnComplete(func() { n.Add(1) })
		s := g.Source()
		g.Close()
		return s
	}()
	runtime.GC()
	assert.EqualValues(t, 1, n.Load(), "group completed at close")
	require.NotNil(t, src.Group())
	_, ok := src.Acquire()
	assert.False(t, ok, "acquire fails only because the group is closed")
}

func TestTaskGroup_TokenSourceDoesNotHoldToken(t *testing.T) {
	g := New()
	n := completion(g)
	_ = g.Source()
	g.Close()
	assert.EqualValues(t, 1, n.Load())
}

func TestTaskGroup_ConcurrentTokens(t *testing.T) {
	for range 100 {
		g := New()
		n := completion(g)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range 10 {
			tok, ok := g.Acquire()
			require.True(t, ok)
			wg.Go(func() {
				<-start
				tok.Release()
			})
		}
		g.Close()
		close(start)
		wg.Wait()
		assert.EqualValues(t, 1, n.Load())
	}
}

func TestTaskGroup_ConcurrentAddOnCompleteAndClose(t *testing.T) {
	for range 100 {
		g := New()
		var n atomic.Int32
		var wg sync.WaitGroup
		wg.Go(func() { g.AddOnComplete(func() { n.Add(1) }) })
		wg.Go(g.Close)
		wg.Wait()
		assert.EqualValues(t, 1, n.Load())
	}
}

func TestTaskGroup_ConcurrentAcquireAndClose(t *testing.T) {
	g := New()
	n := completion(g)
	var toks [5]Token
	for i := range toks {
		toks[i], _ = g.Acquire()
	}
	var wg sync.WaitGroup
	for i := range toks {
		wg.Go(func() { toks[i].Release() })
	}
	wg.Go(g.Close)
	wg.Wait()
	assert.EqualValues(t, 1, n.Load())
}

// TestStripeAccounting checks the per-stripe bookkeeping directly: tokens
// record their stripe, close sets every stripe's closed bit, the count of
// the central counter tracks stripes that are closed and drained.
func TestStripeAccounting(t *testing.T) {
	g := New()
	require.GreaterOrEqual(t, g.Stripes(), minStripes)
	require.Zero(t, g.Stripes()&(g.Stripes()-1), "power of two")
	tok, _ := g.Acquire()
	assert.EqualValues(t, g.Stripes()+1, g.pending.Load())
	g.Close()
	for i := range g.stripes {
		assert.NotZero(t, g.stripes[i].v.Load()&closedBit, "stripe %d not closed", i)
	}
	// Every stripe but the token's is drained, and Close counted itself.
	assert.EqualValues(t, 1, g.pending.Load())
	tok.Release()
	assert.EqualValues(t, 0, g.pending.Load())
}

func TestStripeCountFor(t *testing.T) {
	for _, tc := range []struct{ cpu, want int }{
		{1, 16}, {2, 16}, {3, 32}, {4, 32}, {16, 128}, {32, 256}, {1000, 256},
	} {
		assert.Equal(t, tc.want, stripeCountFor(tc.cpu), "cpu=%d", tc.cpu)
	}
}

// TestAcquireMovesOnContention: a stripe whose CAS keeps failing (here:
// one that a concurrent goroutine hammers) does not stop Acquire, which
// moves to the neighbour.
func TestAcquireMovesOnContention(t *testing.T) {
	g := New()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range g.stripes {
		wg.Go(func() {
			s := &g.stripes[i]
			for {
				select {
				case <-stop:
					return
				default:
				}
				old := s.v.Load()
				if old&closedBit == 0 && s.v.CompareAndSwap(old, old+1) {
					s.v.Add(^uint64(0))
				}
			}
		})
	}
	for range 10000 {
		tok, ok := g.Acquire()
		if !ok {
			t.Fatal("acquire failed on an open group")
		}
		tok.Release()
	}
	close(stop)
	wg.Wait()
}

func TestMisusePanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func()
		msg  string
	}{
		{"zero token", func() { var tok Token; tok.Release() }, "keepalive: release of a zero or already released token"},
		{"double release", func() {
			g := New()
			tok, _ := g.Acquire()
			tok.Release()
			tok.Release()
		}, "keepalive: release of a zero or already released token"},
		{"release of a copy after the original", func() {
			g := New()
			tok, _ := g.Acquire()
			cp := tok
			tok.Release()
			cp.Release()
		}, "keepalive: negative token count (token released more often than acquired)"},
		{"release of a copy after close", func() {
			g := New()
			tok, _ := g.Acquire()
			cp := tok
			g.Close()
			tok.Release()
			cp.Release()
		}, "keepalive: negative token count (token released more often than acquired)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.PanicsWithValue(t, tc.msg, tc.fn)
		})
	}
}

// TestMisuseLeavesGroupUsable: the underflow panic undoes its decrement.
func TestMisuseLeavesGroupUsable(t *testing.T) {
	g := New()
	n := completion(g)
	tok, _ := g.Acquire()
	cp := tok
	tok.Release()
	assert.Panics(t, func() { cp.Release() })
	tok, ok := g.Acquire()
	require.True(t, ok)
	g.Close()
	assert.EqualValues(t, 0, n.Load())
	tok.Release()
	assert.EqualValues(t, 1, n.Load())
}

func TestCallbacksMayReenter(t *testing.T) {
	g := New()
	var order []int
	g.AddOnComplete(func() {
		order = append(order, 1)
		_, ok := g.Acquire()
		assert.False(t, ok)
		g.Close()
		g.AddOnComplete(func() { order = append(order, 3) }) // runs inline
	})
	g.AddOnComplete(func() { order = append(order, 2) })
	g.Close()
	assert.Equal(t, []int{1, 3, 2}, order)
}

func TestAcquireReleaseAllocs(t *testing.T) {
	g := New()
	allocs := testing.AllocsPerRun(1000, func() {
		tok, ok := g.Acquire()
		if !ok {
			panic("acquire failed")
		}
		tok.Release()
	})
	if allocs != 0 {
		t.Fatalf("Acquire+Release allocates %v times, want 0", allocs)
	}
	src := g.Source()
	allocs = testing.AllocsPerRun(1000, func() {
		tok, _ := src.Acquire()
		tok2, _ := tok.Clone()
		tok2.Release()
		tok.Release()
	})
	if allocs != 0 {
		t.Fatalf("TokenSource/Clone allocates %v times, want 0", allocs)
	}
}

// TestDenialIsFinal stops Close halfway through sealing, as a preemption
// there would: a goroutine denied on a sealed stripe must be denied again
// from every stack depth, though most stripes are still open.
func TestDenialIsFinal(t *testing.T) {
	g := New()
	half := len(g.stripes) / 2
	mask := g.mask
	// Close's first steps, by hand: the mask, then half the stripes.
	g.mask = 0
	for i := range half {
		g.stripes[i].v.Or(closedBit)
	}
	for depth := range 64 {
		tok, ok := acquireAtDepth(g, depth)
		assert.False(t, ok, "depth %d admitted after a denial", depth)
		assert.False(t, tok.Valid())
	}
	for i := half; i < len(g.stripes); i++ {
		assert.Zero(t, g.stripes[i].v.Load(), "stripe %d touched", i)
	}
	// Undo, and let the real Close run the protocol from the start.
	for i := range half {
		g.stripes[i].v.And(countMask)
	}
	g.mask = mask
	n := completion(g)
	g.Close()
	assert.EqualValues(t, 1, n.Load())
}
