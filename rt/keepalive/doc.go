// Package keepalive is a lock-free keepalive group: the Go form of orc-rt's
// TaskGroup (Token, TokenSource, close, on-complete callbacks), built so
// that acquiring and releasing a token scales with cores. RATIONALE.md
// ("rt/keepalive") gives the algorithm and its correctness argument.
//
// A [Group] counts spans of execution ("tokens"). [Group.Acquire] takes a
// token unless the group is closed; [Token.Release] gives it back. From
// the moment [Group.Close] returns, every Acquire fails, also one made by
// a goroutine that already holds a token; and a denial is final, even
// while Close is still running: a goroutine once denied is never admitted
// again. When the group is closed and the last token is released, the
// callbacks registered with [Group.AddOnComplete] run exactly once, in
// registration order, on the goroutine that released the last token (or
// inside Close if none was outstanding), outside any lock, so they may
// re-enter the group.
//
// A [Token] guards one span of execution on one goroutine (for example the
// synchronous part of a call); holding one in a long-lived structure
// delays completion indefinitely. A [TokenSource] is a reference to a
// group that holds no token, for acquiring later.
//
// # Concurrency
//
// Every method of Group, Token and TokenSource is safe for concurrent use,
// except that one Token value must not be released concurrently with
// itself. Acquire and Release are lock-free and allocation-free; only the
// Release of the last token after Close runs callbacks. Close never waits
// for tokens. A Group must come from [New]; the zero TokenSource and the
// zero Token are usable (they acquire nothing).
//
// Misuse panics with a "keepalive: " prefix: releasing a zero Token,
// releasing the same Token variable twice, or releasing more tokens than
// were acquired.
//
// # Memory
//
// A Group allocates its stripes once, in [New]. Tokens are 16-byte values
// and never allocate. Nothing returned aliases caller memory.
package keepalive
