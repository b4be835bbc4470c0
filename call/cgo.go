//go:build cgo

package call

import "github.com/orcgo/orcrt/native"

// How a typed call reaches native code: the token of the code's guard
// around it (call), then its tier's path (callHeld). The cgo and
// system-stack tiers go through package native's C trampolines; the
// go-stack tier through this package's assembly (gostack.go).

// tiersPos is where sig.code keeps the Func's tiers (bits 40-55).
const tiersPos = 40

// call makes a guarded call with the arguments' register words a0-a3 (0
// where the signature has none). The typed forms only convert, and call
// it: the call itself is not generic.
func (s sig) call(a0, a1, a2, a3 uint64) (uint64, error) {
	g := s.guard
	if g == nil {
		return 0, errZeroFunc
	}
	tok, ok := g.Acquire() // inlined: one atomic pair
	if !ok {
		return 0, s.fn().denied()
	}
	b := s.callHeld(a0, a1, a2, a3)
	tok.Release()
	return b, nil
}

// callHeld is call inside a Batch.
//
// The commonest cases are spelled out here, not in a callee: each Go call
// level costs about as much as TierGoStack's whole transition.
func (s sig) callHeld(a0, a1, a2, a3 uint64) uint64 {
	switch t := tiers(s.code >> tiersPos); t.tier() {
	case TierGoStack:
		if s.code&fpRegs != 0 {
			return goStackCall(s.addr, s.code, a0, a1, a2, a3)
		}
		var r uint64
		var ok bool
		switch t.frame() {
		case 0:
			r, ok = goStackInts256(s.addr, a0, a1, a2, a3)
		case 1:
			r, ok = goStackInts1K(s.addr, a0, a1, a2, a3)
		case 2:
			r, ok = goStackInts4K(s.addr, a0, a1, a2, a3)
		default:
			r, ok = goStackInts16K(s.addr, a0, a1, a2, a3)
		}
		if !ok {
			overrun()
		}
		return r
	case TierSystemStack:
		if s.code&fpRegs == 0 {
			var f native.IntsFrame
			f.Set(s.addr, a0, a1, a2, a3)
			native.SystemStackInts4(&f)
			return f.R
		}
		return systemStackCall(s.addr, s.code, a0, a1, a2, a3)
	}
	if s.code&(fpRegs|wideRet) == 0 {
		// The commonest case spelled out: 9 instructions fewer
		// (cachegrind, Typed1[int32, int32]).
		var f native.IntsFrame
		f.Set(s.addr, a0, a1, a2, a3)
		return uint64(native.CallInts4Ret32(&f))
	}
	return callOther(s.addr, s.code, a0, a1, a2, a3)
}

// callOther calls a signature with a floating argument or result, or a
// result wider than 32 bits.
func callOther(fn uintptr, code, a0, a1, a2, a3 uint64) uint64 {
	if code&fpRegs == 0 {
		var f native.IntsFrame
		f.Set(fn, a0, a1, a2, a3)
		native.CallInts4Ret64(&f)
		return f.R
	}
	return callRegs(fn, code, a0, a1, a2, a3, false)
}

// systemStackCall is callHeld at TierSystemStack with floating arguments
// or result.
func systemStackCall(fn uintptr, code, a0, a1, a2, a3 uint64) uint64 {
	return callRegs(fn, code, a0, a1, a2, a3, true)
}

// callRegs calls through a native.RegsFrame, through cgo or on the
// system stack.
func callRegs(fn uintptr, code, a0, a1, a2, a3 uint64, systemStack bool) uint64 {
	f := native.RegsFrame{Fn: fn, W: regWords(code, a0, a1, a2, a3)}
	switch float := code>>(8*retByte)&cFloat != 0; {
	case systemStack && float:
		native.SystemStackRegs4Float(&f)
	case systemStack:
		native.SystemStackRegs4Int(&f)
	case float:
		native.CallRegs4Float(&f)
	default:
		native.CallRegs4Int(&f)
	}
	return f.R
}

// regWords puts each argument word in its register's word (native.Regs4):
// the last argument first, since an absent one has class 0 (slot 0) and
// word 0, and a present one overwrites it.
func regWords(code, a0, a1, a2, a3 uint64) (w [8]uint64) {
	w[code>>(24+cSlot)&7] = a3
	w[code>>(16+cSlot)&7] = a2
	w[code>>(8+cSlot)&7] = a1
	w[code>>cSlot&7] = a0
	return w
}

// gsFrame is the frame of TierGoStack's trampolines (gostack_*.s): the
// function, the words of native.RegsFrame (W[0:4] the integer arguments,
// W[4:8] the floating ones' bit patterns), and both result registers.
type gsFrame struct {
	fn    uintptr
	w     [8]uint64
	r, rf uint64
}

// goStackCall is callHeld at TierGoStack with floating arguments or
// result.
func goStackCall(fn uintptr, code, a0, a1, a2, a3 uint64) uint64 {
	f := gsFrame{fn: fn, w: regWords(code, a0, a1, a2, a3)}
	goStack(tiers(code>>tiersPos).frame(), &f)
	if code>>(8*retByte)&cFloat != 0 {
		return f.rf
	}
	return f.r
}
