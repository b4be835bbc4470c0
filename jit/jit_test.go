//go:build linux && cgo

package jit_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/internal/jittest"
	"github.com/orcgo/orcrt/jit"
)

func start(t *testing.T, opts jit.Options) *jit.JIT {
	t.Helper()
	opts.Controller = jittest.Controller(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	j, err := jit.Start(ctx, opts)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, j.Close()) })
	return j
}

func TestAddCAndCall(t *testing.T) {
	j := start(t, jit.Options{})
	ctx := context.Background()
	m, err := j.AddC(ctx, "sq", "long sq(long x) { return x * x; }")
	require.NoError(t, err)
	fs, err := m.Lookup(ctx, "sq")
	require.NoError(t, err)
	sq := executor.Typed1[int64, int64](fs[0])
	got, err := sq.Call(12)
	require.NoError(t, err)
	require.Equal(t, int64(144), got)
	t.Log("LLVM", j.LLVMVersion())
}
