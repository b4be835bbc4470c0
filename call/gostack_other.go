//go:build cgo && !(linux && (amd64 || arm64))

package call

// TierGoStack has trampolines for amd64 and arm64 only.
const goStackTier = false

const stackBoundExtra = 0

func goStack(uint8, *gsFrame) {
	panic("call: TierGoStack on an architecture without its trampolines")
}

func goStackInts256(uintptr, uint64, uint64, uint64, uint64) (uint64, bool) { panic(noGoStack) }
func goStackInts1K(uintptr, uint64, uint64, uint64, uint64) (uint64, bool)  { panic(noGoStack) }
func goStackInts4K(uintptr, uint64, uint64, uint64, uint64) (uint64, bool)  { panic(noGoStack) }
func goStackInts16K(uintptr, uint64, uint64, uint64, uint64) (uint64, bool) { panic(noGoStack) }
func overrun()                                                              {}

const noGoStack = "call: TierGoStack on an architecture without its trampolines"
