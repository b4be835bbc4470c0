//go:build linux && cgo

package jit_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/call"
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

// addSquare adds a module defining long sq(long) and returns it and sq.
func addSquare(t *testing.T, j *jit.JIT) (*jit.Module, call.Func) {
	t.Helper()
	ctx := context.Background()
	m, err := j.AddC(ctx, "sq", "long sq(long x) { return x * x; }")
	require.NoError(t, err)
	fs, err := m.Lookup(ctx, "sq")
	require.NoError(t, err)
	return m, fs[0]
}

func TestAddCAndCall(t *testing.T) {
	j := start(t, jit.Options{})
	_, f := addSquare(t, j)
	sq := call.Typed1[int64, int64](f)
	got, err := sq.Call(12)
	require.NoError(t, err)
	require.Equal(t, int64(144), got)
	t.Log("LLVM", j.LLVMVersion())
}
