//go:build cgo && (amd64 || arm64)

package call

const goStackTier = true

// The trampolines, one per goStackFrames size; each returns false if the
// function wrote below its bound (the frame's canary).
//
//go:noescape
func goStack256(f *gsFrame) bool

//go:noescape
func goStack1K(f *gsFrame) bool

//go:noescape
func goStack4K(f *gsFrame) bool

//go:noescape
func goStack16K(f *gsFrame) bool

// The integer-only trampolines: arguments and result in registers of
// the C ABI only, passed in the trampoline's argument frame.
func goStackInts256(fn uintptr, a0, a1, a2, a3 uint64) (r uint64, ok bool)
func goStackInts1K(fn uintptr, a0, a1, a2, a3 uint64) (r uint64, ok bool)
func goStackInts4K(fn uintptr, a0, a1, a2, a3 uint64) (r uint64, ok bool)
func goStackInts16K(fn uintptr, a0, a1, a2, a3 uint64) (r uint64, ok bool)

//go:noinline
func overrun() {
	panic("call: a JIT'd function wrote below its proven stack bound on the goroutine stack (TierGoStack); its facts are wrong")
}

// goStack calls f.fn in the trampoline of frame size index frame.
func goStack(frame uint8, f *gsFrame) {
	var ok bool
	switch frame {
	case 0:
		ok = goStack256(f)
	case 1:
		ok = goStack1K(f)
	case 2:
		ok = goStack4K(f)
	default:
		ok = goStack16K(f)
	}
	if !ok {
		overrun()
	}
}
