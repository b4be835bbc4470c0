package keepalive

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

const (
	// closedBit is set in a stripe word once Close has reached it. It is
	// never cleared.
	closedBit = uint64(1) << 63
	// countMask selects the token count of a stripe word.
	countMask = closedBit - 1

	// stripePad: 128 bytes, as the adjacent-line prefetcher pairs lines.
	stripePad = 128

	minStripes = 16
	maxStripes = 256
)

// stripe is one cache-line-isolated counter word.
type stripe struct {
	v atomic.Uint64
	_ [stripePad - 8]byte
}

// Group is a keepalive group. Create one with [New]; the zero value is not
// usable (a nil *Group is: every Acquire on it fails).
//
// N padded stripes each hold one word: a closed bit and the count of
// tokens acquired on that stripe and not yet released. A central counter,
// pending, starts at N+1 and reaches zero exactly once, when Close and
// every stripe have each contributed their one decrement; whoever takes it
// to zero runs the callbacks. RATIONALE.md ("rt/keepalive") proves it.
type Group struct {
	_ noCopy

	stripes []stripe
	// mask is len(stripes)-1, and 0 once Close starts sealing. It is read
	// with sync/atomic's functions: atomic.Uint32's method would cost
	// Acquire its inlining.
	mask uint32

	closed  atomic.Bool   // elects the one Close that runs the protocol
	sealed  chan struct{} // closed once every stripe carries the closed bit
	pending atomic.Int64  // stripes + 1; zero means complete

	mu   sync.Mutex // guards cbs and done only
	cbs  []func()
	done bool
}

// noCopy makes go vet report copies of a Group.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// New returns an open group with no tokens and no callbacks.
func New() *Group {
	n := stripeCountFor(runtime.NumCPU())
	g := &Group{stripes: make([]stripe, n), mask: uint32(n - 1), sealed: make(chan struct{})}
	g.pending.Store(int64(n) + 1)
	return g
}

// stripeCountFor returns 8×ncpu rounded up to a power of two, clamped to
// [minStripes, maxStripes].
func stripeCountFor(ncpu int) int {
	n := minStripes
	for n < 8*ncpu && n < maxStripes {
		n <<= 1
	}
	return n
}

// StripeHint returns the goroutine-affine hash Acquire uses to pick a
// stripe (a Fibonacci hash of a stack address, shifted so that the mask
// takes the product's well-mixed bits), exported for comparison
// benchmarks.
func StripeHint() uint32 {
	var b byte
	// Only hashed, never dereferenced: b does not escape.
	return uint32(uintptr(unsafe.Pointer(&b))>>10*0x9E3779B9) >> 16
}

// Acquire takes a token, or returns false and a zero Token if the group
// is closed. It does not allocate. g must not be nil. (Kept within the
// inlining budget.)
func (g *Group) Acquire() (Token, bool) {
	for i := StripeHint(); ; i++ {
		// The mask is 0 once Close starts sealing, so a denial is final:
		// every later Acquire finds stripe 0, sealed first.
		s := &g.stripes[i&atomic.LoadUint32(&g.mask)]
		old := s.v.Load()
		if old&closedBit != 0 {
			return Token{}, false
		}
		if s.v.CompareAndSwap(old, old+1) {
			return Token{g, s}, true
		}
	}
}

// Source returns a TokenSource for g.
func (g *Group) Source() TokenSource { return TokenSource{g: g} }

// Close closes the group, idempotently. With no token outstanding it runs
// the completion callbacks itself. When any Close returns, every later
// Acquire fails (a concurrent second Close waits for the first to seal
// the stripes; it never waits for tokens); while it seals, a goroutine
// once denied is denied again.
func (g *Group) Close() {
	if g.closed.Swap(true) {
		<-g.sealed
		return
	}
	atomic.StoreUint32(&g.mask, 0)
	for i := range g.stripes { // stripe 0 first
		// Close's own share keeps pending above zero here.
		if g.stripes[i].v.Or(closedBit)&countMask == 0 {
			g.decPending()
		}
	}
	close(g.sealed)
	g.decPending()
}

// Stripes returns the number of counter stripes (for tests and
// benchmarks).
func (g *Group) Stripes() int { return len(g.stripes) }

// Closing reports whether Close has been called; Acquire may still
// succeed until it has sealed the stripes (Closed). What is closing is
// gone for new users: a lookup must not hand it out.
func (g *Group) Closing() bool { return g.closed.Load() }

// Closed reports whether the group is closed: once it returns true, every
// later Acquire fails. (A Close still sealing the stripes does not count
// yet: an Acquire could still slip in.)
func (g *Group) Closed() bool {
	select {
	case <-g.sealed:
		return true
	default:
		return false
	}
}

// Completed reports whether the completion callbacks have been started
// (the group is closed and every token has been released).
func (g *Group) Completed() bool { return g.pending.Load() == 0 }

// AddOnComplete registers f to run when the group completes. If it has
// already completed, f runs immediately on the calling goroutine. Callbacks
// run once each, in registration order.
func (g *Group) AddOnComplete(f func()) {
	g.mu.Lock()
	if !g.done {
		g.cbs = append(g.cbs, f)
		g.mu.Unlock()
		return
	}
	g.mu.Unlock()
	f()
}

func (g *Group) decPending() {
	if n := g.pending.Add(-1); n == 0 {
		g.complete()
	} else if n < 0 {
		panic("keepalive: BUG: completion counter went negative")
	}
}

// complete runs the callbacks outside the lock; later ones run inline.
func (g *Group) complete() {
	g.mu.Lock()
	cbs := g.cbs
	g.cbs = nil
	g.done = true
	g.mu.Unlock()
	for _, f := range cbs {
		f()
	}
}

// Token is one acquired unit of keepalive; the zero Token holds nothing.
// Release it exactly once (through any one copy).
type Token struct {
	g *Group
	s *stripe
}

// Valid reports whether t holds a token.
func (t Token) Valid() bool { return t.s != nil }

// Group returns the group t belongs to, or nil for a zero Token.
func (t Token) Group() *Group { return t.g }

// Release gives the token back and zeroes t. Releasing a zero Token
// (including one already released through the same variable) panics.
func (t *Token) Release() {
	var n uint64
	if s := t.s; s != nil {
		if n = s.v.Add(^uint64(0)); n < countMask {
			t.s = nil
			return
		}
	}
	t.releaseSlow(n)
}

// releaseSlow handles a zero Token, a closed stripe and an underflow.
//
//go:noinline
func (t *Token) releaseSlow(n uint64) {
	g, s := t.g, t.s
	if s == nil {
		panic("keepalive: release of a zero or already released token")
	}
	*t = Token{}
	switch {
	case n&countMask == countMask:
		// More releases than acquires: undo and report.
		s.v.Add(1)
		panic("keepalive: negative token count (token released more often than acquired)")
	case n == closedBit:
		g.decPending()
	}
}

// Clone acquires another token from t's group (upstream's Token copy); it
// fails once the group is closed, and for a zero Token.
func (t Token) Clone() (Token, bool) {
	if t.s == nil {
		return Token{}, false
	}
	return t.g.Acquire()
}

// TokenSource references a group without holding a token, so it never
// delays completion. The zero TokenSource acquires nothing.
type TokenSource struct {
	g *Group
}

// Acquire takes a token from the source's group; see [Group.Acquire].
func (s TokenSource) Acquire() (Token, bool) {
	if s.g == nil {
		return Token{}, false
	}
	return s.g.Acquire()
}

// Group returns the source's group (nil for the zero TokenSource).
func (s TokenSource) Group() *Group { return s.g }
