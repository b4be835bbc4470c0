//go:build cgo

package call

import "github.com/orcgo/orcrt/native"

// The cgo tier: a typed call is a native call through cgo's entry points
// (package native), the code pinned around it.

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
	var b uint64
	if s.code&(fpRegs|wideRet) == 0 {
		// callHeld's commonest case spelled out: 9 instructions fewer
		// (cachegrind, Typed1[int32, int32]).
		var f native.IntsFrame
		f.Set(s.addr, a0, a1, a2, a3)
		b = uint64(native.CallInts4Ret32(&f))
	} else {
		b = callOther(s.addr, s.code, a0, a1, a2, a3)
	}
	tok.Release()
	return b, nil
}

// callHeld is call inside a Batch.
func (s sig) callHeld(a0, a1, a2, a3 uint64) uint64 {
	if s.code&(fpRegs|wideRet) == 0 {
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
	var f native.RegsFrame
	f.Fn = fn
	// Each word to its register, the last argument first: an absent one
	// has class 0 (slot 0) and word 0, and a present one overwrites it.
	f.W[code>>(24+cSlot)&7] = a3
	f.W[code>>(16+cSlot)&7] = a2
	f.W[code>>(8+cSlot)&7] = a1
	f.W[code>>cSlot&7] = a0
	if code>>(8*retByte)&cFloat != 0 {
		native.CallRegs4Float(&f)
	} else {
		native.CallRegs4Int(&f)
	}
	return f.R
}
