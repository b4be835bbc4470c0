//go:build cgo

package executor_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/sps"
)

// TestCallsToNonCode: CallWrapper, run_as_* and allocation actions aimed
// at addresses that are not executable code in the executor — a service
// instance (a Go heap object), reserved read-write JIT'd memory, an
// address nothing is mapped at — get an error result (an empty payload on
// the wire for calls, the SPSError text for actions) and the executor
// serves on; real code keeps working. The stock executor dies by SIGSEGV
// on the first of them.
func TestCallsToNonCode(t *testing.T) {
	eachTarget(t, func(t *testing.T, s *session) {
		c := ctx(t)
		mm := s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_Instance")
		r, err := wiretest.Call2(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper"), sps.MemoryManagerReserve, mm, 0x2000)
		require.NoError(t, err)
		require.NoError(t, r.Err)
		data := r.Value
		for _, a := range []sps.Addr{mm, data, 0x7ff0_dead_0000, 0xfff0_0000_0000_0000} {
			got, err := s.Call(c, a, []byte("args"))
			require.NoError(t, err)
			assert.Empty(t, got, "CallWrapper %#x", uint64(a))
			v, err := wiretest.Call1(c, s.Controller, s.MustSymbol("__llvm_orc_bootstrap_run_as_void_function_wrapper"), sps.RunAsVoidFunction, a)
			assert.ErrorIs(t, err, wiretest.ErrDeserializeResult, "run_as_void_function %#x: %v", uint64(a), v)
		}
		k, err := wiretest.Call2(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_initialize_wrapper"), sps.MemoryManagerInitialize, mm,
			sps.FinalizeRequest{
				Segments: []sps.SegFinalizeRequest{{Group: sps.Read | sps.Write, Addr: data, Size: 0x1000}},
				Actions:  []sps.ActionPair{{Finalize: sps.WrapperCall{Fn: mm, Args: []byte{}}}},
			})
		require.NoError(t, err)
		require.Error(t, k.Err)
		assert.Contains(t, k.Err.Error(), "alloc: action not run: codemap: ")
		assert.Contains(t, k.Err.Error(), " is not executable code in this process")
		// Still serving, and real code still runs.
		lib := loadJITLib(t, s)
		got, err := s.Call(c, lib("orcrt_test_echo"), []byte("alive"))
		require.NoError(t, err)
		assert.Equal(t, "alive", string(got))
		out := s.end(t)
		assert.NoError(t, out.err)
		assert.Equal(t, 0, out.status.Code)
		assert.Empty(t, out.stderr)
	})
	t.Run("stock", func(t *testing.T) {
		requireStock(t)
		ex, s := startFaultProcess(t, stockBin)
		_, err := s.Start(s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_Instance"), nil)
		require.NoError(t, err)
		st, err := ex.WaitTimeout(exitBound + time.Second)
		require.NoError(t, err)
		t.Logf("stock executor: %v", st)
		assert.Equal(t, -1, st.Code, "the stock executor dies by a signal")
	})
}
