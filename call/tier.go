//go:build cgo

package call

import (
	"fmt"
	"runtime"

	"github.com/orcgo/orcrt/native"
)

// Tier is how a call enters a function's native code. Each tier above
// [TierCgo] is cheaper and asks more of the function; a Func's tier is
// the highest its [Facts] allow, and a host may lower it ([Func.AtTier]).
type Tier uint8

const (
	// TierCgo enters through cgo, as any C call from Go does: the
	// function may block, call back into Go and use any amount of stack.
	TierCgo Tier = iota
	// TierSystemStack runs the function on the thread's system stack
	// without telling Go's scheduler (the runtime's asmcgocall): for
	// functions that neither block nor call into Go.
	TierSystemStack
	// TierGoStack runs the function inside a frame of the goroutine's own
	// stack, sized from the function's proven stack bound: for leaf
	// functions whose stack use LLVM recorded.
	TierGoStack
)

func (t Tier) String() string {
	switch t {
	case TierCgo:
		return "cgo"
	case TierSystemStack:
		return "system-stack"
	case TierGoStack:
		return "go-stack"
	}
	return fmt.Sprintf("Tier(%d)", uint8(t))
}

// Calls is what a function's code may call, as its linker proved it.
type Calls uint8

const (
	// CallsUnknown: anything, other libraries and Go included (the zero
	// value: nothing is proven).
	CallsUnknown Calls = iota
	// CallsNonBlocking: only functions of its own link that qualify too,
	// and library functions that neither block nor call back (memcpy,
	// sqrt, ...); no call through a pointer.
	CallsNonBlocking
	// CallsNothing: a leaf. No call, no tail call, no indirect branch.
	CallsNothing
)

func (c Calls) String() string {
	switch c {
	case CallsUnknown:
		return "unknown"
	case CallsNonBlocking:
		return "non-blocking"
	case CallsNothing:
		return "nothing"
	}
	return fmt.Sprintf("Calls(%d)", uint8(c))
}

// Facts are what the linker proved about a function's code: package jit's
// controller reads them from each link (docs/protocol.md §11). The zero
// Facts prove nothing and allow [TierCgo] only.
type Facts struct {
	Calls Calls
	// StackSize is the stack the function's own frame uses, in bytes, as
	// LLVM recorded it in the object's stack-size section
	// (-fstack-size-section): valid if HasStackSize. LLVM records none
	// for a frame of variable size.
	StackSize    uint64
	HasStackSize bool
}

// goStackFrames are the frame sizes of TierGoStack's trampolines, in
// bytes; a function runs in the smallest whose usable part holds its
// bound (stackBound). The frame's lowest 32 bytes are not the
// function's: a canary word, and up to 15 bytes to align its top.
var goStackFrames = [...]uint64{256, 1024, 4096, 16384}

const frameOverhead = 32

// goStackFrame returns the index of the trampoline frame for a function
// with these facts, or false if it may not run on the goroutine stack.
func (f Facts) goStackFrame() (uint8, bool) {
	if !goStackTier || f.Calls != CallsNothing || !f.HasStackSize || f.StackSize > 1<<32 {
		return 0, false
	}
	bound := f.StackSize + stackBoundExtra
	for i, size := range goStackFrames {
		if bound+frameOverhead <= size {
			return uint8(i), true
		}
	}
	return 0, false
}

// MaxTier returns the highest tier these facts allow with this build (a
// tier its Go release or GOARCH lacks is skipped).
func (f Facts) MaxTier() Tier {
	if _, ok := f.goStackFrame(); ok {
		return TierGoStack
	}
	if native.SystemStackCalls && (f.Calls == CallsNonBlocking || f.Calls == CallsNothing) {
		return TierSystemStack
	}
	return TierCgo
}

// tiers packs a Func's tier, the highest its facts allow, its
// trampoline frame and the facts' calls into the Func's spare bytes, and
// into byte 5-6 of a typed form's sig.code: both stay register-sized.
type tiers uint16

const (
	tierShift, maxTierShift, frameShift, callsShift = 0, 2, 4, 6
	hasStackBit                                     = 1 << 8
)

func (t tiers) tier() Tier            { return Tier(t >> tierShift & 3) }
func (t tiers) maxTier() Tier         { return Tier(t >> maxTierShift & 3) }
func (t tiers) frame() uint8          { return uint8(t >> frameShift & 3) }
func (t tiers) calls() Calls          { return Calls(t >> callsShift & 3) }
func (t tiers) withTier(n Tier) tiers { return t&^(3<<tierShift) | tiers(n)<<tierShift }

// WithFacts returns f with the facts its linker proved about its code,
// called at the highest tier they allow ([Facts.MaxTier]). Facts must
// come from the code itself, as package jit's do: wrong ones let a call
// block the scheduler or overrun the goroutine's stack.
func (f Func) WithFacts(facts Facts) Func {
	max := facts.MaxTier()
	frame, _ := facts.goStackFrame()
	t := tiers(max)<<maxTierShift | tiers(frame)<<frameShift | tiers(facts.Calls&3)<<callsShift
	if facts.HasStackSize {
		t |= hasStackBit
	}
	f.tiers = t.withTier(max)
	return f
}

// Tier returns the tier f's calls use.
func (f Func) Tier() Tier { return f.tiers.tier() }

// MaxTier returns the highest tier f's facts allow.
func (f Func) MaxTier() Tier { return f.tiers.maxTier() }

// AtTier returns f called at tier t, which may be lower than the one its
// facts allow (for a long-running function that should not hold off Go's
// garbage collector, say), never higher: it fails, saying why, if t is
// above [Func.MaxTier].
func (f Func) AtTier(t Tier) (Func, error) {
	if t > f.MaxTier() {
		if tierUnbuilt(t) {
			return f, fmt.Errorf("call: tier %s is not available in this build (%s/%s, %s)", t, runtime.GOOS, runtime.GOARCH, runtime.Version())
		}
		return f, fmt.Errorf("call: tier %s is above what the function's facts allow (%s: calls %s, stack size known %t)",
			t, f.MaxTier(), f.tiers.calls(), f.tiers&hasStackBit != 0)
	}
	f.tiers = f.tiers.withTier(t)
	return f, nil
}

// tierUnbuilt reports whether t is missing from this build whatever the
// facts.
func tierUnbuilt(t Tier) bool {
	switch t {
	case TierSystemStack:
		return !native.SystemStackCalls
	case TierGoStack:
		return !goStackTier
	}
	return false
}
