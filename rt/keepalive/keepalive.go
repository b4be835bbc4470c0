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

	// stripePad keeps each stripe on its own pair of 64-byte lines: Intel's
	// adjacent-line prefetcher pulls lines in 128-byte pairs, so 64 bytes of
	// padding would still let neighbours share.
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
// # Algorithm
//
// The group has N padded stripes (N a power of two, chosen from
// runtime.NumCPU when the group is created) and a central counter pending.
// Each stripe is one uint64 word: the top bit is "closed", the low 63 bits
// count the tokens acquired on that stripe and not yet released.
//
//   - Acquire picks a stripe from a goroutine-affine hint ([StripeHint]),
//     loads its word, fails if the closed bit is set, and otherwise
//     compare-and-swaps count+1 into it (moving to the next stripe if the
//     CAS loses a race). The Token records the stripe index.
//   - Release subtracts one from the recorded stripe. If the result is
//     exactly closedBit (closed, count zero) the releasing goroutine
//     decrements pending.
//   - Close sets the closed bit in every stripe with an atomic OR. For each
//     stripe whose previous count was zero it decrements pending; then it
//     decrements pending once more for itself.
//   - pending starts at N+1. Whoever decrements it to zero runs the
//     completion callbacks.
//
// # Proof sketch
//
// (1) No stripe is incremented after it is closed. An increment is a CAS
// whose expected value has the closed bit clear; after Close's OR the word
// always has the closed bit set (nothing clears it), so such a CAS can only
// succeed if it comes before the OR in the stripe's modification order.
// Hence, once Close has returned, every stripe is closed and every Acquire
// fails: the load sees the bit, or the CAS fails and the retry load sees it.
//
// (2) Each stripe contributes exactly one decrement of pending. After the
// OR, the count of a stripe only decreases (by (1)). If the OR saw count
// 0, the stripe is closed-and-zero at that instant and no correct Release
// can touch it again; Close decrements for it and no Release produces the
// word closedBit (a Release would need count 1). If the OR saw count k>0,
// the k subsequent Releases take it to closed|k-1, ..., closed|0, and
// exactly one of them — the one whose result is closedBit — decrements. A
// Release ordered before the OR never sees the closed bit, so it never
// decrements. So pending receives exactly N stripe decrements plus Close's
// own, and reaches zero exactly once: completion runs exactly once. (A
// Swap on a closed flag elects the first Close; a later one only waits
// until the first has sealed every stripe, so "every Acquire fails once
// Close has returned" holds for every caller of Close.)
//
// (3) Completion never runs while a token is held. A held token was
// acquired by a CAS ordered before its stripe's OR (by (1)), so the OR saw
// a count that includes it, and that stripe cannot reach closed|0 — and so
// cannot contribute its decrement — until the token is released. pending
// cannot reach zero without every stripe's decrement.
//
// # Memory model
//
// Every operation above is a sync/atomic operation, which the Go memory
// model makes sequentially consistent: if atomic operation B observes the
// effect of A, A is synchronized before B. Each Release's subtraction on a
// stripe precedes, in that stripe's modification order, the operation that
// produces closed|0 (the OR or the final Release), which reads it through
// the chain of read-modify-writes on the word; that operation precedes its
// own decrement of pending, and every decrement of pending is an RMW that
// reads the previous one. So every Release synchronizes before the
// decrement that takes pending to zero, and therefore before every
// completion callback: writes made while holding a token are visible to
// the callbacks. Likewise everything before Close, and every AddOnComplete
// registration, happens before the callbacks run.
type Group struct {
	_ noCopy

	stripes []stripe
	mask    uint32

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

// stripeCountFor returns the number of stripes for ncpu CPUs: eight per
// CPU rounded up to a power of two, so that goroutines hashed by stack
// address rarely share a stripe (two goroutines collide with probability
// 1/N), clamped to [minStripes, maxStripes].
func stripeCountFor(ncpu int) int {
	n := minStripes
	for n < 8*ncpu && n < maxStripes {
		n <<= 1
	}
	return n
}

// StripeHint returns the goroutine-affine hash Acquire uses to pick a
// stripe: a Fibonacci hash of the address of a variable on the calling
// goroutine's stack. Different goroutines have different stacks, so they
// tend to land on different stripes; one goroutine tends to reuse its own.
// It costs a few instructions and no memory access. It is exported so that
// comparison benchmarks can use exactly the same selection.
func StripeHint() uint32 {
	var b byte
	// The stack address is only hashed, never turned back into a pointer,
	// so b does not escape.
	p := uint64(uintptr(unsafe.Pointer(&b)))
	return uint32((p >> 10) * 0x9E3779B97F4A7C15 >> 40)
}

// Acquire takes a token. It returns false (and a zero Token) if the group
// is closed. It does not allocate. g must not be nil (a zero TokenSource
// or a zero Token's Clone fails instead).
//
// The body is kept within the compiler's inlining budget (cost 80): a CAS
// lost to a concurrent acquire moves on to the next stripe inline.
func (g *Group) Acquire() (Token, bool) {
	i := StripeHint()
	for {
		s := &g.stripes[i&g.mask]
		old := s.v.Load()
		if old&closedBit != 0 {
			return Token{}, false
		}
		if s.v.CompareAndSwap(old, old+1) {
			return Token{g: g, s: s}, true
		}
		i++
	}
}

// Source returns a TokenSource for g.
func (g *Group) Source() TokenSource { return TokenSource{g: g} }

// Close closes the group. It is idempotent. If no token is outstanding it
// runs the completion callbacks before returning; otherwise the release of
// the last token runs them. When any Close call returns, every later
// Acquire fails: a concurrent second Close waits until the first has
// sealed every stripe (a few atomic ORs; it never waits for tokens).
func (g *Group) Close() {
	if g.closed.Swap(true) {
		<-g.sealed
		return
	}
	for i := range g.stripes {
		// pending cannot reach zero inside this loop: Close's own share is
		// still outstanding, so no callback runs here.
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

// Closed reports whether Close has been called.
func (g *Group) Closed() bool { return g.closed.Load() }

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

// complete takes the callbacks and runs them outside the lock. A callback
// registered while they run sees done and runs inline.
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

// Token is one acquired unit of keepalive. The zero Token holds nothing.
// It is a small value (no allocation); release it exactly once, through
// the variable Acquire returned (or a copy of it, but then only once in
// total).
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

// releaseSlow handles a zero Token and a Release whose result word n is not
// a plain open count: the stripe is closed, or the count underflowed.
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
		// 0 - 1: more releases than acquires on this stripe. Undo and
		// report; the group's state is otherwise untouched.
		s.v.Add(1)
		panic("keepalive: negative token count (token released more often than acquired)")
	case n == closedBit:
		g.decPending()
	}
}

// Clone acquires another token from t's group, the Go form of copying an
// upstream Token. It fails once the group is closed, even though t is
// still held. Cloning a zero Token fails.
func (t Token) Clone() (Token, bool) {
	if t.s == nil {
		return Token{}, false
	}
	return t.g.Acquire()
}

// TokenSource is a strong reference to a group that does not hold a
// token: it keeps the group reachable so a later Acquire is well defined,
// but never delays completion. The zero TokenSource acquires nothing.
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
