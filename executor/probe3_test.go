//go:build cgo

package executor_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/sps"
)

// TestProbe3 replays stock-executor Probe 3: allocation-action
// ordering and failure rollback, observed through the JITLoaderGDB
// action, which pushes an entry whose symfile_addr is the action's range
// start at the head of __jit_debug_descriptor's list (read back with the
// memory-access wrappers). The stock executor, when installed, must give
// the same observations.
func TestProbe3(t *testing.T) {
	want := []string{
		"initialize: ok",
		"chain: a2 a1 a0",
		"deinitialize: 00",
		"chain: d0 d2",
		"failed initialize: Could not deserialize arguments for wrapper function call",
		"chain: e0 e1 b0",
		"write into failed segment: ok",
		"re-initialize: ok",
		"release: 00",
		"chain: f0 f1 f2",
		"direct call with empty args: empty payload",
	}
	eachTarget(t, func(t *testing.T, s *session) {
		assert.Equal(t, want, probe3(t, s))
	})
	t.Run("stock", func(t *testing.T) {
		requireStock(t)
		assert.Equal(t, want, probe3(t, startProcess(t, stockBin, nil)))
	})
}

func probe3(t *testing.T, s *session) []string {
	c := ctx(t)
	var log []string
	mm := s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_Instance")
	gdb := s.MustSymbol("llvm_orc_registerJITLoaderGDBAllocAction")
	h, err := wiretest.Call3(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_open_wrapper"), sps.DylibManagerOpen,
		s.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_Instance"), "", 0)
	require.NoError(t, err)
	require.NoError(t, h.Err)
	res, err := wiretest.Call2(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_resolve_wrapper"), sps.DylibManagerResolve,
		h.Value, []sps.LookupElement{{Name: []byte("__jit_debug_descriptor"), Required: true}})
	require.NoError(t, err)
	require.NoError(t, res.Err)
	desc := res.Value[0].Value.Addr
	require.NotZero(t, desc)

	read64 := func(a sps.Addr) sps.Addr {
		v, err := wiretest.Call1(c, s.Controller, s.MustSymbol("__llvm_orc_bootstrap_mem_read_uint64s_wrapper"), sps.ReadUInt64s, []sps.Addr{a})
		require.NoError(t, err)
		return sps.Addr(v[0])
	}
	// chain returns the symfile addresses of the list, head first.
	chain := func() []sps.Addr {
		var out []sps.Addr
		for e := read64(desc + 16); e != 0; e = read64(e) {
			out = append(out, read64(e+16))
		}
		return out
	}
	seen := len(chain())
	// newEntries logs the entries added since the last look, head first.
	newEntries := func() {
		all := chain()
		s := "chain:"
		for _, a := range all[:len(all)-seen] {
			s += fmt.Sprintf(" %x", uint64(a))
		}
		seen = len(all)
		log = append(log, s)
	}
	act := func(x sps.Addr) sps.WrapperCall {
		return sps.WrapperCall{Fn: gdb, Args: sps.RegisterJITLoaderGDBAction.AppendArgs(nil, sps.AddrRange{Start: x, End: x + 4}, false)}
	}
	seg := func(a sps.Addr) []sps.SegFinalizeRequest {
		return []sps.SegFinalizeRequest{{Group: sps.Read, Addr: a, Size: 0x1000}}
	}
	initialize := func(fr sps.FinalizeRequest) (sps.Addr, error) {
		r, err := wiretest.Call2(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_initialize_wrapper"), sps.MemoryManagerInitialize, mm, fr)
		require.NoError(t, err)
		return r.Value, r.Err
	}

	slab, err := wiretest.Call2(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper"), sps.MemoryManagerReserve, mm, 0x4000)
	require.NoError(t, err)
	require.NoError(t, slab.Err)
	base := slab.Value

	key, err := initialize(sps.FinalizeRequest{Segments: seg(base), Actions: []sps.ActionPair{
		{Finalize: act(0xa0), Dealloc: act(0xd0)},
		{Finalize: act(0xa1)},
		{Finalize: act(0xa2), Dealloc: act(0xd2)},
	}})
	log = append(log, fmt.Sprintf("initialize: %s", okOr(err, key == base)))
	newEntries()

	derr, err := wiretest.Call2(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_deinitialize_wrapper"), sps.MemoryManagerDeinitialize, mm, []sps.Addr{base})
	require.NoError(t, err)
	log = append(log, "deinitialize: "+spsErr(derr))
	newEntries()

	// A no-op action that succeeds: release of nothing. A failing one:
	// reserve with no arguments (an out-of-band error).
	noop := sps.WrapperCall{Fn: s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_release_wrapper"), Args: sps.MemoryManagerRelease.AppendArgs(nil, mm, nil)}
	bad := sps.WrapperCall{Fn: s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper")}
	_, err = initialize(sps.FinalizeRequest{Segments: seg(base + 0x1000), Actions: []sps.ActionPair{
		{Finalize: act(0xb0), Dealloc: act(0xe0)},
		{Finalize: noop, Dealloc: act(0xe1)},
		{Finalize: bad, Dealloc: act(0xe2)},
		{Finalize: act(0xb3), Dealloc: act(0xe3)},
	}})
	log = append(log, "failed initialize: "+fmt.Sprint(err))
	newEntries()

	// The segment was to become R--; protections were reset to RW.
	_, err = s.CallName(c, "__llvm_orc_bootstrap_mem_write_buffers_wrapper",
		sps.WriteBuffers.AppendArgs(nil, []sps.BufferWrite{{Addr: base + 0x1000, Data: []byte("still writable")}}))
	log = append(log, "write into failed segment: "+okOr(err, true))
	_, err = initialize(sps.FinalizeRequest{Segments: seg(base + 0x1000)})
	log = append(log, "re-initialize: "+okOr(err, true))

	_, err = initialize(sps.FinalizeRequest{Segments: seg(base + 0x2000), Actions: []sps.ActionPair{{Dealloc: act(0xf0)}, {Dealloc: act(0xf1)}}})
	require.NoError(t, err)
	_, err = initialize(sps.FinalizeRequest{Segments: seg(base + 0x3000), Actions: []sps.ActionPair{{Dealloc: act(0xf2)}}})
	require.NoError(t, err)
	rerr, err := wiretest.Call2(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_release_wrapper"), sps.MemoryManagerRelease, mm, []sps.Addr{base})
	require.NoError(t, err)
	log = append(log, "release: "+spsErr(rerr))
	newEntries()

	b, err := s.Call(c, gdb, nil)
	require.NoError(t, err)
	if len(b) == 0 {
		log = append(log, "direct call with empty args: empty payload")
	} else {
		log = append(log, fmt.Sprintf("direct call with empty args: %x", b))
	}
	return log
}

func okOr(err error, ok bool) string {
	switch {
	case err != nil:
		return err.Error()
	case !ok:
		return "unexpected value"
	}
	return "ok"
}

func spsErr(err error) string {
	if err != nil {
		return "01 " + err.Error()
	}
	return "00"
}
