//go:build cgo

package executor_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/internal/crossexec"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/service/gdbjit"
	"github.com/orcgo/orcrt/sps"
)

// withTestFlag returns a script that runs bin with test-jitloadergdb
// before the specifier (wiretest appends extra arguments after it).
func withTestFlag(t *testing.T, bin string) string {
	p := filepath.Join(t.TempDir(), "exec-with-test-flag")
	// Under QEMU (the arm64 job) the script runs bin through the emulator.
	prog, args := crossexec.Wrap(bin, []string{"test-jitloadergdb"})
	cmd := "exec"
	for _, a := range append([]string{prog}, args...) {
		cmd += " '" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+cmd+" \"$@\"\n"), 0o755))
	return p
}

// leaveWork leaves, at the end of the session, a region whose dealloc
// action registers a GDB entry for [0xfee0, 0xfee4), and a character in
// the executor's stdout buffer (putchar through run_as_int_function).
func leaveWork(t *testing.T, s *session) {
	c := ctx(t)
	mm := s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_Instance")
	r, err := wiretest.Call2(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper"), sps.MemoryManagerReserve, mm, 0x1000)
	require.NoError(t, err)
	require.NoError(t, r.Err)
	gdb := sps.WrapperCall{Fn: s.MustSymbol("llvm_orc_registerJITLoaderGDBAllocAction"),
		Args: sps.RegisterJITLoaderGDBAction.AppendArgs(nil, sps.AddrRange{Start: 0xfee0, End: 0xfee4}, false)}
	k, err := wiretest.Call2(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_initialize_wrapper"), sps.MemoryManagerInitialize, mm,
		sps.FinalizeRequest{Segments: []sps.SegFinalizeRequest{{Group: sps.Read, Addr: r.Value, Size: 0x1000}}, Actions: []sps.ActionPair{{Dealloc: gdb}}})
	require.NoError(t, err)
	require.NoError(t, k.Err)

	h, err := wiretest.Call3(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_open_wrapper"), sps.DylibManagerOpen,
		s.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_Instance"), "", 0)
	require.NoError(t, err)
	res, err := wiretest.Call2(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_resolve_wrapper"), sps.DylibManagerResolve,
		h.Value, []sps.LookupElement{{Name: []byte("putchar"), Required: true}})
	require.NoError(t, err)
	require.NoError(t, res.Err)
	for _, ch := range "ok" {
		_, err = wiretest.Call2(c, s.Controller, s.MustSymbol("__llvm_orc_bootstrap_run_as_int_function_wrapper"), sps.RunAsIntFunction,
			res.Value[0].Value.Addr, int32(ch))
		require.NoError(t, err)
	}
}

var lastEntryRE = regexp.MustCompile(`^__jit_debug_descriptor\.last_entry = 0x([0-9a-f]{16})$`)

// TestShutdownReleasesAndFlushes: at end of input the executor runs the
// dealloc actions of memory never released and flushes the JIT'd code's
// stdout before exiting 0 — and so does the stock executor.
func TestShutdownReleasesAndFlushes(t *testing.T) {
	check := func(t *testing.T, bin string) {
		ex, err := wiretest.StartExecutor(withTestFlag(t, bin), nil)
		require.NoError(t, err)
		s := &session{Controller: ex.Controller, kind: "process"}
		leaveWork(t, s)
		require.NoError(t, ex.Finish(ctx(t)))
		st, err := ex.WaitTimeout(callTimeout)
		require.NoError(t, err)
		assert.Equal(t, wiretest.ExitStatus{}, st)
		assert.Equal(t, "ok", ex.Stdout(), "putchar output flushed at exit")
		lines := trimLines(ex.Stderr())
		require.Len(t, lines, 2, ex.Stderr())
		for _, l := range lines {
			assert.Regexp(t, lastEntryRE, l)
		}
		assert.Equal(t, "__jit_debug_descriptor.last_entry = 0x0000000000000000", lines[0])
		assert.NotEqual(t, lines[0], lines[1], "the dealloc action ran at shutdown")
	}
	t.Run("process", func(t *testing.T) { check(t, orcrtBin) })
	t.Run("stock", func(t *testing.T) {
		requireStock(t)
		check(t, stockBin)
	})
	t.Run("inprocess", func(t *testing.T) {
		s := startInProcess(t, executorOptions())
		leaveWork(t, s)
		before := len(gdbjit.Snapshot().Entries)
		require.NoError(t, s.end(t).err)
		d := gdbjit.Snapshot()
		require.Len(t, d.Entries, before+1)
		assert.Equal(t, sps.Addr(0xfee0), d.Entries[0].SymfileAddr)
	})
}

func TestDebugLogging(t *testing.T) {
	ex, err := wiretest.StartExecutor(orcrtBin, &wiretest.ExecOptions{Env: []string{"ORCRT_LOG=debug"}})
	require.NoError(t, err)
	_, err = ex.CallName(ctx(t), "__llvm_orc_bootstrap_mem_read_buffers_wrapper", sps.ReadBuffers.AppendArgs(nil, nil))
	require.NoError(t, err)
	require.NoError(t, ex.Finish(ctx(t)))
	st, err := ex.WaitTimeout(callTimeout)
	require.NoError(t, err)
	assert.Equal(t, 0, st.Code)
	assert.Empty(t, ex.Stdout(), "logs go to stderr only")
	logs := ex.Stderr()
	for _, want := range []string{
		"msg=wire dir=send op=Setup seq=0 size=",
		fmt.Sprintf("msg=wire dir=recv op=CallWrapper seq=0 size=8 tag=%d fn=__llvm_orc_bootstrap_mem_read_buffers_wrapper payload=0000000000000000",
			uint64(ex.MustSymbol("__llvm_orc_bootstrap_mem_read_buffers_wrapper"))),
		"msg=wire dir=send op=Result seq=0 size=8 payload=0000000000000000",
		`msg=wire dir=recv event="end of input"`,
	} {
		assert.Contains(t, logs, want)
	}
	assert.False(t, strings.Contains(logs, "level=ERROR"), logs)
}

// TestTestFlagOnFatalError: with test-jitloadergdb, a session that ends
// with a fatal error prints the GDB line only before, as the stock.
func TestTestFlagOnFatalError(t *testing.T) {
	run := func(t *testing.T, bin string) (wiretest.ExitStatus, string) {
		ex, err := wiretest.StartExecutor(withTestFlag(t, bin), nil)
		require.NoError(t, err)
		require.NoError(t, ex.SendRaw(wiretest.RawHeader(32, 4, 0, 0)))
		_ = ex.Finish(ctx(t))
		st, err := ex.WaitTimeout(callTimeout)
		require.NoError(t, err)
		return st, strings.ReplaceAll(ex.Stderr(), bin, "<executor>")
	}
	st, stderr := run(t, orcrtBin)
	assert.Equal(t, 1, st.Code)
	assert.Equal(t, "__jit_debug_descriptor.last_entry = 0x0000000000000000\n<executor>: Unexpected opcode\n", stderr)
	if _, err := os.Stat(stockBin); err == nil {
		sst, sstderr := run(t, stockBin)
		assert.Equal(t, sst, st)
		assert.Equal(t, sstderr, stderr)
	}
}

// TestServeContextCancel: cancelling Serve's context is a local, orderly
// disconnect: the executor sends Hangup (SPSError success), closes the
// connection and Serve returns nil.
func TestServeContextCancel(t *testing.T) {
	execEnd, ctlEnd, err := wiretest.Connect(wiretest.Pipe)
	require.NoError(t, err)
	ex, err := executor.New(executorOptions())
	require.NoError(t, err)
	c, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- ex.Serve(c, execEnd) }()
	ctl, err := wiretest.New(ctlEnd, nil)
	require.NoError(t, err)
	cancel()
	<-ctl.Done()
	p, ok := ctl.HangupPayload()
	assert.True(t, ok)
	assert.Equal(t, []byte{0}, p)
	assert.NoError(t, <-errc)
	assert.NoError(t, ctl.Close())
	// Serve works once.
	a, b, err := wiretest.Connect(wiretest.Pipe)
	require.NoError(t, err)
	assert.Error(t, ex.Serve(context.Background(), a))
	_ = b.Close()

	ex2, err := executor.New(executorOptions())
	require.NoError(t, err)
	ex2.Close()
	a, b, err = wiretest.Connect(wiretest.Pipe)
	require.NoError(t, err)
	assert.EqualError(t, ex2.Serve(context.Background(), a), "executor: Serve after Close")
	_ = b.Close()
}
