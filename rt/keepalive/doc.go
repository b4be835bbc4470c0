// Package keepalive is a lock-free keepalive group: the Go form of orc-rt's
// TaskGroup (Token, TokenSource, close, on-complete callbacks), built so
// that acquiring and releasing a token scales with cores.
//
// # Use
//
// A [Group] counts spans of execution ("tokens"). [Group.Acquire] takes a
// token unless the group is closed; [Token.Release] gives it back.
// [Group.Close] closes the group: from the moment Close returns, every
// Acquire fails — including one made by a goroutine that already holds a
// token (a nested call is not special). When the group is closed and the
// last token is released, the completion callbacks registered with
// [Group.AddOnComplete] run exactly once, in registration order, on the
// goroutine that released the last token (or inside Close if none was
// outstanding), outside any lock, so they may re-enter the group.
//
// A [Token] guards one span of execution on one goroutine's stack (for
// example the synchronous part of a call); it is not meant to follow a
// chain of asynchronous work. Holding a token in a long-lived structure
// delays completion indefinitely.
//
// A [TokenSource] is a strong reference to a group that holds no token: it
// lets code acquire later without delaying completion in the meantime.
//
// # Concurrency
//
// Every method of Group, Token and TokenSource is safe for concurrent use,
// except that one Token value must not be released concurrently with
// itself (it is a plain value, like an int). Acquire and Release are
// lock-free and allocation-free, and never run callbacks themselves except
// that the Release of the last token after Close runs the completion
// callbacks. AddOnComplete takes a mutex that only guards the callback
// list. Close never waits for tokens; a Close racing the first one waits
// only until the first has marked every stripe closed.
//
// A Group must come from [New]; a nil *Group is not usable, but the zero
// TokenSource and the zero Token are (they acquire nothing).
//
// Misuse panics with a "keepalive: " prefix: releasing a zero Token or
// releasing the same Token variable twice, and releasing more tokens than
// were acquired (detected when a stripe's count would go negative).
//
// # Memory
//
// A Group allocates its stripes once, in [New]. Tokens are 16-byte values
// and never allocate. Nothing returned by this package aliases caller
// memory.
//
// See the doc comment on [Group] for the algorithm and its proof.
package keepalive
