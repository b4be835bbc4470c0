// Package call calls JIT'd code from Go: a [Func] is a function's address
// with the guard that keeps its code alive for a call, and [Typed0] to
// [Typed4] and [Raw] give it a C signature.
//
// A Func comes from whoever knows where the code lies and what keeps it:
// executor.Executor.Func and Lookup, jit.Module.Lookup. Each call takes a
// token of the keepalive group (package rt/keepalive) that guards the
// code: the pin of the allocation holding it, or the Session's group for
// code outside JIT'd memory. The controller's release of the allocation
// waits for calls in flight and denies later ones ([ErrReleased]); the
// Session's shutdown does the same ([ErrShutDown]). Memory a call's
// arguments point to is the caller's, as with cgo: Go memory must be
// pinned and kept alive for the call.
//
// # Tiers
//
// A call enters native code at its Func's [Tier], the highest its
// linker's [Facts] allow (package jit's controller proves them per
// function; a Func without facts uses [TierCgo]): [TierGoStack] runs a
// leaf with a proven stack bound in a frame of the goroutine's own stack,
// [TierSystemStack] a function that neither blocks nor calls into Go on
// the thread's system stack, [TierCgo] anything through cgo. The fast
// tiers hold off Go's garbage collector and the goroutine's preemption
// for the call's duration: lower a long-running function's tier with
// [Func.AtTier]. Raw calls use TierCgo. cgo.go dispatches; gostack_*.s
// holds TierGoStack's trampolines, slice.go the slice calls.
//
// # Concurrency
//
// Func and its typed forms are small values: copy them freely and call
// them from any goroutine, concurrently. A call holds no lock; it blocks
// a release or shutdown of its code only while it runs. Func.Batch holds
// one token for many CallHeld calls; fn must not wait for the release or
// the shutdown it holds off.
package call
