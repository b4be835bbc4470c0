//go:build cgo && (amd64 || arm64)

package native_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/cmem"
	"github.com/orcgo/orcrt/native"
)

func TestCallInts4(t *testing.T) {
	fn := regtestLib(t)
	neg32, neg64 := fn("s32_neg"), fn("s64_neg")
	var f native.IntsFrame
	f.Set(neg32, 9, 0, 0, 0)
	assert.Equal(t, int32(-9), int32(native.CallInts4Ret32(&f)))
	f.Set(neg64, 1<<40, 0, 0, 0)
	native.CallInts4Ret64(&f)
	assert.Equal(t, int64(-1<<40), int64(f.R))
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		var f native.IntsFrame
		f.Set(neg32, 9, 0, 0, 0)
		native.CallInts4Ret32(&f)
		f.Set(neg64, 9, 0, 0, 0)
		native.CallInts4Ret64(&f)
	}))
}

func TestCallRegs4Frame(t *testing.T) {
	fn := regtestLib(t)
	var f native.RegsFrame
	f.Fn, f.W = fn("mix"), [8]uint64{sx(-3), 7, 250, 0, uint64(math.Float32bits(0.5)), math.Float64bits(0.25), uint64(math.Float32bits(2))}
	native.CallRegs4Float(&f)
	assert.Equal(t, -3+0.5+7+0.25+250+2, math.Float64frombits(f.R))
	f.Fn, f.W = fn("s64_neg"), [8]uint64{1 << 40}
	native.CallRegs4Int(&f)
	assert.Equal(t, int64(-1<<40), int64(f.R))
}

// grow uses about n KiB of stack.
//
//go:noinline
func grow(n int) int {
	var b [1024]byte
	b[n%len(b)] = byte(n)
	if n == 0 {
		return int(b[0])
	}
	return grow(n-1) + int(b[n%len(b)])
}

// A callee that calls back into Go, whose stack grows there and moves:
// the result is stored in the frame where it now is.
func TestDirectCallStackMoves(t *testing.T) {
	name, err := cmem.MallocCopy([]byte("x\x00"))
	require.NoError(t, err)
	defer cmem.Free(name)
	native.SetExportHandler(func(string, uintptr) int {
		if grow(512) < 0 {
			return -1
		}
		return 12345678
	})
	defer native.SetExportHandler(func(string, uintptr) int { return -1 })
	// Each call on a new goroutine: a stack that has grown once stays.
	fresh := func(call func()) {
		done := make(chan struct{})
		go func() { defer close(done); call() }()
		<-done
	}
	fresh(func() {
		var f native.IntsFrame
		f.Set(native.ExportAddr(), uint64(name), 1, 0, 0)
		native.CallInts4Ret64(&f)
		assert.Equal(t, uint32(12345678), uint32(f.R), "CallInts4Ret64")
	})
	fresh(func() {
		f := native.RegsFrame{Fn: native.ExportAddr(), W: [8]uint64{uint64(name), 1}}
		native.CallRegs4Int(&f)
		assert.Equal(t, uint32(12345678), uint32(f.R), "CallRegs4Int")
	})
}
