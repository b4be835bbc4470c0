//go:build cgo

package executor_test

import (
	"context"
	"encoding/binary"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/sps"
)

// wrapperNames are the bootstrap symbols that are wrapper functions (the
// others are the two instances and the dispatch context and function).
func wrapperNames() []string {
	var out []string
	for _, n := range stockNames {
		if strings.HasSuffix(n, "_Instance") || strings.HasPrefix(n, "__llvm_orc_SimpleRemoteEPC_") {
			continue
		}
		out = append(out, n)
	}
	return out
}

// TestUndecodableArguments: every wrapper answers arguments that do not
// decode with an out-of-band error, which LLVM 22 puts on the wire as an
// empty Result payload — as the stock executor does.
func TestUndecodableArguments(t *testing.T) {
	run := func(t *testing.T, s *session) {
		c := ctx(t)
		for _, name := range wrapperNames() {
			for _, args := range [][]byte{nil, {1, 2, 3}} {
				got, err := s.CallName(c, name, args)
				require.NoError(t, err, name)
				assert.Empty(t, got, "%s(%x)", name, args)
			}
		}
		out := s.end(t)
		assert.NoError(t, out.err)
		assert.Equal(t, 0, out.status.Code)
		assert.Empty(t, out.stderr)
	}
	eachTarget(t, run)
	t.Run("stock", func(t *testing.T) {
		requireStock(t)
		run(t, startProcess(t, stockBin, nil))
	})
}

// TestRefusedWhereStockCrashes covers inputs that crash or abort the stock
// executor and get an error from orcrt instead.
func TestRefusedWhereStockCrashes(t *testing.T) {
	eachTarget(t, func(t *testing.T, s *session) {
		c := ctx(t)
		// resolve with a handle no open returned.
		r, err := wiretest.Call2(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_resolve_wrapper"), sps.DylibManagerResolve,
			0xdead0000, []sps.LookupElement{{Name: []byte("printf")}})
		require.NoError(t, err)
		assert.EqualError(t, r.Err, "dylib: resolve: unknown handle 0xdead0000 (not returned by open)")
		// A required empty name (the stock calls its completion twice).
		h, err := wiretest.Call3(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_open_wrapper"), sps.DylibManagerOpen,
			s.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_Instance"), "", 0)
		require.NoError(t, err)
		r, err = wiretest.Call2(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_resolve_wrapper"), sps.DylibManagerResolve,
			h.Value, []sps.LookupElement{{Name: nil, Required: true}})
		require.NoError(t, err)
		assert.EqualError(t, r.Err, `Required address for empty symbol ""`)
		// An inverted range to read, and reads and writes of unmapped
		// memory: out-of-band errors (empty payloads), the executor lives.
		for _, call := range []struct {
			name string
			args []byte
		}{
			{"__llvm_orc_bootstrap_mem_read_buffers_wrapper", sps.ReadBuffers.AppendArgs(nil, []sps.AddrRange{{Start: 0x2000, End: 0x1000}})},
			{"__llvm_orc_bootstrap_mem_read_uint64s_wrapper", sps.ReadUInt64s.AppendArgs(nil, []sps.Addr{8})},
			{"__llvm_orc_bootstrap_mem_write_pointers_wrapper", sps.WritePointers.AppendArgs(nil, []sps.UIntWrite[sps.Addr]{{Addr: 16, Value: 1}})},
			{"__llvm_orc_bootstrap_run_as_main_wrapper", sps.RunAsMain.AppendArgs(nil, 0, nil)},
			{"__llvm_orc_bootstrap_run_as_void_function_wrapper", sps.RunAsVoidFunction.AppendArgs(nil, 0)},
		} {
			got, err := s.CallName(c, call.name, call.args)
			require.NoError(t, err)
			assert.Empty(t, got, call.name)
		}
		// Deregistering an eh-frame section never registered (libgcc
		// would abort).
		e, err := wiretest.Call1(c, s.Controller, s.MustSymbol("llvm_orc_deregisterEHFrameAllocAction"), sps.DeregisterEHFrameAction,
			sps.AddrRange{Start: 0x1000, End: 0x1010})
		require.NoError(t, err)
		assert.ErrorContains(t, e, "no eh-frame section registered at 0x1000")
		// A call of address 0.
		got, err := s.Call(c, 0, nil)
		require.NoError(t, err)
		assert.Empty(t, got)

		out := s.end(t)
		assert.NoError(t, out.err)
		assert.Equal(t, 0, out.status.Code, out.stderr)
	})
}

// TestPipelinedCalls keeps many calls in flight at once; every result
// comes back with its call's sequence number (in any order).
func TestPipelinedCalls(t *testing.T) {
	eachTarget(t, func(t *testing.T, s *session) {
		c := ctx(t)
		mm := s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_Instance")
		r, err := wiretest.Call2(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper"), sps.MemoryManagerReserve, mm, 0x10000)
		require.NoError(t, err)
		require.NoError(t, r.Err)
		base := r.Value
		const n = 2000
		write := s.MustSymbol("__llvm_orc_bootstrap_mem_write_uint64s_wrapper")
		read := s.MustSymbol("__llvm_orc_bootstrap_mem_read_uint64s_wrapper")
		var calls []*wiretest.Call
		for i := range n {
			a := base + sps.Addr(8*i)
			call, err := s.Start(write, sps.WriteUInt64s.AppendArgs(nil, []sps.UIntWrite[uint64]{{Addr: a, Value: uint64(i) * 3}}))
			require.NoError(t, err)
			calls = append(calls, call)
		}
		for _, call := range calls {
			_, err := call.Wait(c)
			require.NoError(t, err)
		}
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := g; i < n; i += 8 {
					b, err := s.Call(context.Background(), read, sps.ReadUInt64s.AppendArgs(nil, []sps.Addr{base + sps.Addr(8*i)}))
					if err != nil || len(b) != 16 || binary.LittleEndian.Uint64(b[8:]) != uint64(i)*3 {
						t.Errorf("read %d: %x %v", i, b, err)
						return
					}
				}
			}()
		}
		wg.Wait()
	})
}
