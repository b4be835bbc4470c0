//go:build cgo

package executor_test

import (
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/sps"
)

func openFDs(t *testing.T) int {
	es, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	return len(es)
}

// TestNoLeaks runs many complete in-process sessions — with memory left
// reserved, a JIT'd call and a jit-dispatch — and checks that descriptors
// and goroutines come back to where they were.
func TestNoLeaks(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts /proc/self/fd")
	}
	// One session first, so one-time process setup (libraries, lazily
	// created runtime threads) is not counted.
	one := func() {
		s := startInProcess(t, executorOptions())
		c := ctx(t)
		mm := s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_Instance")
		r, err := wiretest.Call2(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper"), sps.MemoryManagerReserve, mm, 0x10000)
		require.NoError(t, err)
		require.NoError(t, r.Err)
		_, err = s.CallName(c, "__llvm_orc_bootstrap_mem_write_uint64s_wrapper",
			sps.WriteUInt64s.AppendArgs(nil, []sps.UIntWrite[uint64]{{Addr: r.Value, Value: 1}}))
		require.NoError(t, err)
		require.NoError(t, s.end(t).err)
	}
	one()
	before := openFDs(t)
	current := goleak.IgnoreCurrent()
	for range 20 {
		one()
	}
	assert.Equal(t, before, openFDs(t), "descriptors leaked")
	assert.NoError(t, goleak.Find(current))
}
