//go:build cgo

package call

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/orcgo/orcrt/native"
)

// sliceChunk is how many elements a slice call at a tier above TierCgo
// runs per transition: Go's garbage collector waits for one chunk, not
// for the whole slice.
const sliceChunk = 4096

// kindOf is argument i's (or, with i = retByte, the result's) element
// kind for native.SliceFrame: its size, class and register word.
func kindOf[T Result](code uint64, i int) uint32 {
	var v T
	c := uint8(code >> (8 * i))
	k := uint32(unsafe.Sizeof(v))
	if c&cSigned != 0 {
		k |= native.KindSigned
	}
	if c&cFloat != 0 {
		k |= native.KindFloat
	}
	if c&cBool != 0 {
		k |= native.KindBool
	}
	return k | uint32(c>>cSlot&7)<<native.KindSlotShift
}

// sliceLengths checks a slice call's lengths (in2 < 0: one input).
func sliceLengths(out, in1, in2 int) error {
	if in1 != out || in2 >= 0 && in2 != out {
		return sliceLengthsError(out, in1, in2)
	}
	return nil
}

//go:noinline
func sliceLengthsError(out, in1, in2 int) error {
	if in2 < 0 {
		return fmt.Errorf("call: slice call with lengths %d (out) and %d (in): they must be equal", out, in1)
	}
	return fmt.Errorf("call: slice call with lengths %d (out), %d and %d (in): they must be equal", out, in1, in2)
}

// callSlice runs fr's loop over n elements with the code pinned
// throughout: one transition at TierCgo, one per sliceChunk elements at
// the faster tiers (at most TierSystemStack: one transition per chunk
// leaves nothing for TierGoStack to save).
func (s sig) callSlice(fr *native.SliceFrame, n int) error {
	g := s.guard
	if g == nil {
		return errZeroFunc
	}
	tok, ok := g.Acquire()
	if !ok {
		return s.fn().denied()
	}
	defer tok.Release()
	if n == 0 {
		return nil
	}
	fr.Fn = s.addr
	if tiers(s.code>>tiersPos).tier() == TierCgo || !native.SystemStackCalls {
		fr.N = uint64(n)
		native.CallSlice(fr)
		return nil
	}
	for done := 0; done < n; done += sliceChunk {
		fr.N = uint64(min(sliceChunk, n-done))
		native.SystemStackSlice(fr)
		if done+sliceChunk >= n {
			break
		}
		for i := range fr.NArgs {
			fr.In[i] = unsafe.Add(fr.In[i], sliceChunk*uintptr(fr.InKind[i]&0xf))
		}
		fr.Out = unsafe.Add(fr.Out, sliceChunk*uintptr(fr.OutKind&0xf))
	}
	return nil
}

// CallSlice calls the function once per element, out[i] = f(in[i]), in
// one transition into native code for the whole slice (a loop in C),
// with the code pinned throughout: the way to near a Go call's cost at
// TierCgo too, when a host has many values at once. At the faster tiers
// the loop runs on the system stack in chunks of 4,096 elements, so that
// Go's garbage collector waits for one chunk at most. len(out) must be
// len(in). It does not allocate.
func (t Func1[R, A1]) CallSlice(out []R, in []A1) error {
	if err := sliceLengths(len(out), len(in), -1); err != nil {
		return err
	}
	fr := native.SliceFrame{NArgs: 1, Out: unsafe.Pointer(unsafe.SliceData(out)), OutKind: kindOf[R](t.s.code, retByte)}
	fr.In[0], fr.InKind[0] = unsafe.Pointer(unsafe.SliceData(in)), kindOf[A1](t.s.code, 0)
	err := t.s.callSlice(&fr, len(in))
	runtime.KeepAlive(in)
	runtime.KeepAlive(out)
	return err
}

// CallSlice calls the function once per element, out[i] = f(in1[i],
// in2[i]), as [Func1.CallSlice] does. The slices' lengths must be equal.
func (t Func2[R, A1, A2]) CallSlice(out []R, in1 []A1, in2 []A2) error {
	if err := sliceLengths(len(out), len(in1), len(in2)); err != nil {
		return err
	}
	fr := native.SliceFrame{NArgs: 2, Out: unsafe.Pointer(unsafe.SliceData(out)), OutKind: kindOf[R](t.s.code, retByte)}
	fr.In[0], fr.InKind[0] = unsafe.Pointer(unsafe.SliceData(in1)), kindOf[A1](t.s.code, 0)
	fr.In[1], fr.InKind[1] = unsafe.Pointer(unsafe.SliceData(in2)), kindOf[A2](t.s.code, 1)
	err := t.s.callSlice(&fr, len(in1))
	runtime.KeepAlive(in1)
	runtime.KeepAlive(in2)
	runtime.KeepAlive(out)
	return err
}
