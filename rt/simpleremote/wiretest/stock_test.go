package wiretest_test

import (
	"context"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/llvmtools"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/sps"
)

const stockExecutor = "/usr/lib/llvm-22/bin/llvm-jitlink-executor"

func startStock(t *testing.T, opts *wiretest.ExecOptions) *wiretest.Executor {
	t.Helper()
	if _, err := os.Stat(stockExecutor); err != nil {
		llvmtools.Missing(t, "%s not installed", stockExecutor)
	}
	e, err := wiretest.StartExecutor(stockExecutor, opts)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = e.Close()
		_, _ = e.WaitTimeout(10 * time.Second)
	})
	return e
}

// TestStockExecutorSession drives the real llvm-jitlink-executor 22 with
// the wiretest controller: the library speaks the stock protocol.
func TestStockExecutorSession(t *testing.T) {
	e := startStock(t, nil)
	setup := e.Setup()
	// Under QEMU (the arm64 job) the stock executor is Debian's arm64 one.
	assert.Equal(t, map[string]string{"amd64": "x86_64-pc-linux-gnu", "arm64": "aarch64-unknown-linux-gnu"}[runtime.GOARCH], setup.Triple)
	assert.Len(t, setup.Symbols, 34)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	reserve := e.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper")
	inst := e.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_Instance")
	// Truncated arguments: out-of-band error, an empty payload on the wire.
	b, err := e.Call(ctx, reserve, []byte{1, 2, 3})
	require.NoError(t, err)
	assert.Empty(t, b)
	base, err := wiretest.Call2(ctx, e.Controller, reserve, sps.MemoryManagerReserve, inst, 0x3000)
	require.NoError(t, err)
	require.NoError(t, base.Err)
	assert.NotZero(t, base.Value)

	require.NoError(t, e.Finish(ctx))
	st, err := e.WaitTimeout(10 * time.Second)
	require.NoError(t, err)
	assert.Equal(t, 0, st.Code, "stderr: %s", e.Stderr())
}

func TestStockExecutorFatal(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  []byte
		msg  string
	}{
		{"opcode4", wiretest.Frame(4, 0, 0, nil), "Unexpected opcode"},
		{"setup", wiretest.Frame(simpleremote.OpSetup, 0, 0, nil), "Unexpected Setup opcode"},
		{"small", wiretest.RawHeader(16, 3, 0, 0), "Message size too small"},
		{"eof-header", wiretest.RawHeader(32, 3, 0, 0)[:20], "Unexpected end-of-file"},
		{"no-call", wiretest.ResultFrame(999, nil), "No call for sequence number 999"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := startStock(t, nil)
			require.NoError(t, e.SendRaw(tc.raw))
			require.NoError(t, e.CloseWrite())
			st, err := e.WaitTimeout(10 * time.Second)
			require.NoError(t, err)
			assert.Equal(t, 1, st.Code)
			assert.Equal(t, stockExecutor+": "+tc.msg+"\n", e.Stderr())
			<-e.Done()
			assert.True(t, strings.HasPrefix(e.Stderr(), stockExecutor))
		})
	}
}
