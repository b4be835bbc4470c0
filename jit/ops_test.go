//go:build linux && cgo

package jit_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/internal/cbuild"
	"github.com/orcgo/orcrt/jit"
)

const sumIR = `
define i64 @sum3(i64 %a, i64 %b, i64 %c) {
  %ab = add i64 %a, %b
  %abc = add i64 %ab, %c
  ret i64 %abc
}
`

func call1(t *testing.T, f call.Func, x int64) int64 {
	t.Helper()
	got, err := call.Typed1[int64, int64](f).Call(x)
	require.NoError(t, err)
	return got
}

func TestAddIRText(t *testing.T) {
	j := start(t, jit.Options{})
	ctx := context.Background()
	m, err := j.AddIR(ctx, "sum.ll", []byte(sumIR))
	require.NoError(t, err)
	fs, err := m.Lookup(ctx, "sum3")
	require.NoError(t, err)
	got, err := call.Typed3[int64, int64, int64, int64](fs[0]).Call(1, 20, 300)
	require.NoError(t, err)
	assert.Equal(t, int64(321), got)
}

func TestAddIRBitcodeAndObject(t *testing.T) {
	j := start(t, jit.Options{})
	ctx := context.Background()
	dir := t.TempDir()
	ll := filepath.Join(dir, "sum.ll")
	require.NoError(t, os.WriteFile(ll, []byte(sumIR), 0o644))
	bc, obj := filepath.Join(dir, "sum.bc"), filepath.Join(dir, "sum.o")
	out, err := exec.Command("/usr/lib/llvm-22/bin/llvm-as", ll, "-o", bc).CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command("/usr/lib/llvm-22/bin/llc", "-filetype=obj", "-relocation-model=pic", bc, "-o", obj).CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, tc := range []struct {
		file string
		add  func(context.Context, string, []byte) (*jit.Module, error)
	}{{bc, j.AddIR}, {obj, j.AddObject}} {
		data, err := os.ReadFile(tc.file)
		require.NoError(t, err)
		m, err := tc.add(ctx, filepath.Base(tc.file), data)
		require.NoError(t, err, tc.file)
		fs, err := m.Lookup(ctx, "sum3")
		require.NoError(t, err)
		got, err := call.Typed3[int64, int64, int64, int64](fs[0]).Call(4, 5, 6)
		require.NoError(t, err)
		assert.Equal(t, int64(15), got, tc.file)
	}
}

func TestModulesMayShareNames(t *testing.T) {
	j := start(t, jit.Options{})
	ctx := context.Background()
	a, err := j.AddC(ctx, "a", "long f(long x) { return x + 1; }")
	require.NoError(t, err)
	b, err := j.AddC(ctx, "b", "long f(long x) { return x + 2; }")
	require.NoError(t, err)
	fa, err := a.Lookup(ctx, "f")
	require.NoError(t, err)
	fb, err := b.Lookup(ctx, "f")
	require.NoError(t, err)
	assert.Equal(t, int64(11), call1(t, fa[0], 10))
	assert.Equal(t, int64(12), call1(t, fb[0], 10))
}

func TestLookupMany(t *testing.T) {
	j := start(t, jit.Options{})
	ctx := context.Background()
	m, err := j.AddC(ctx, "many", "long one(long x){return 1;} long two(long x){return 2;} long three(long x){return 3;} long counter = 7;")
	require.NoError(t, err)
	fs, err := m.Lookup(ctx, "three", "one", "two")
	require.NoError(t, err)
	for i, want := range []int64{3, 1, 2} {
		assert.Equal(t, want, call1(t, fs[i], 0))
	}
	addrs, err := m.Addrs(ctx, "counter")
	require.NoError(t, err)
	assert.NotZero(t, addrs[0])
	// Data read and written through Pointers, as go vet accepts.
	ps, err := m.Pointers(ctx, "counter")
	require.NoError(t, err)
	counter := (*int64)(ps[0])
	assert.Equal(t, int64(7), *counter)
	*counter = 8
	assert.Equal(t, int64(8), *(*int64)(ps[0]))
}

func TestCSyntaxError(t *testing.T) {
	j := start(t, jit.Options{})
	src := "long f(long x) {\n  return x +;\n}\n"
	_, err := j.AddC(context.Background(), "bad.c", src)
	var ce *jit.CompileError
	require.ErrorAs(t, err, &ce)
	require.NotEmpty(t, ce.Diagnostics)
	d := ce.Diagnostics[0]
	assert.Equal(t, "bad.c", d.File)
	assert.Equal(t, 2, d.Line)
	assert.Equal(t, 13, d.Column)
	assert.Equal(t, "error", d.Severity)
	assert.Contains(t, err.Error(), "bad.c:2:13: error: expected expression")
	// The controller stays up.
	_, err = j.AddC(context.Background(), "good.c", "long f(long x) { return x; }")
	require.NoError(t, err)
}

func TestInvalidIR(t *testing.T) {
	j := start(t, jit.Options{})
	_, err := j.AddIR(context.Background(), "bad.ll", []byte("define i64 @f(i64 %x) {\n  ret i64 %y\n}\n"))
	var ce *jit.CompileError
	require.ErrorAs(t, err, &ce)
	require.NotEmpty(t, ce.Diagnostics)
	assert.Equal(t, "bad.ll", ce.Diagnostics[0].File)
	assert.Equal(t, 2, ce.Diagnostics[0].Line)
	assert.Contains(t, ce.Diagnostics[0].Message, "use of undefined value '%y'")
	_, err = j.AddIR(context.Background(), "good.ll", []byte(sumIR))
	require.NoError(t, err)
}

func TestTruncatedObject(t *testing.T) {
	j := start(t, jit.Options{})
	ctx := context.Background()
	obj := compileObject(t, "long f(long x) { return x * 3; }")
	for _, n := range []int{0, 10, 64, len(obj) / 2} {
		_, err := j.AddObject(ctx, "cut.o", obj[:n])
		require.Error(t, err, "%d bytes", n)
		assert.NotErrorIs(t, err, jit.ErrControllerGone)
		t.Logf("%d bytes: %v", n, err)
	}
	m, err := j.AddObject(ctx, "whole.o", obj)
	require.NoError(t, err)
	fs, err := m.Lookup(ctx, "f")
	require.NoError(t, err)
	assert.Equal(t, int64(21), call1(t, fs[0], 7))
}

func TestUnknownSymbol(t *testing.T) {
	j := start(t, jit.Options{})
	ctx := context.Background()
	m, err := j.AddC(ctx, "m", "long f(long x) { return x; }")
	require.NoError(t, err)
	_, err = m.Lookup(ctx, "f", "nope", "nada")
	var nf *jit.NotFoundError
	require.ErrorAs(t, err, &nf)
	assert.Equal(t, []string{"nope", "nada"}, nf.Names)
	// A module whose code needs a symbol no one defines fails to link,
	// when it is added.
	_, err = j.AddC(ctx, "u", "long missing_fn(long), other_fn(long); long g(long x) { return missing_fn(x) + other_fn(x); }")
	var le *jit.LinkError
	require.ErrorAs(t, err, &le)
	assert.ElementsMatch(t, []string{"missing_fn", "other_fn"}, le.Missing)
	assert.Equal(t, "u", le.Module)
	fs, err := m.Lookup(ctx, "f")
	require.NoError(t, err)
	assert.Equal(t, int64(5), call1(t, fs[0], 5))
}

func TestHostSymbolsAndLibraries(t *testing.T) {
	lib := cbuild.SharedObject(t, "jitlib", "long lib_triple(long x) { return 3 * x; }")
	j := start(t, jit.Options{Libraries: []string{lib}})
	ctx := context.Background()
	m, err := j.AddC(ctx, "uses", "long lib_triple(long); long g(long x) { return lib_triple(x) + 1; }")
	require.NoError(t, err)
	fs, err := m.Lookup(ctx, "g")
	require.NoError(t, err)
	assert.Equal(t, int64(31), call1(t, fs[0], 10))
	// Process symbols: libc.
	m, err = j.AddC(ctx, "libc", "#include <stdlib.h>\nlong h(long x) { return labs(x); }")
	require.NoError(t, err)
	fs, err = m.Lookup(ctx, "h")
	require.NoError(t, err)
	assert.Equal(t, int64(9), call1(t, fs[0], -9))
}

func TestRemove(t *testing.T) {
	j := start(t, jit.Options{})
	ctx := context.Background()
	m, err := j.AddC(ctx, "m", "long f(long x) { return x; }")
	require.NoError(t, err)
	fs, err := m.Lookup(ctx, "f")
	require.NoError(t, err)
	require.NoError(t, m.Remove(ctx))
	_, err = call.Typed1[int64, int64](fs[0]).Call(1)
	assert.ErrorIs(t, err, call.ErrReleased)
	_, err = m.Lookup(ctx, "f")
	assert.ErrorIs(t, err, jit.ErrRemoved)
	assert.ErrorIs(t, m.Remove(ctx), jit.ErrRemoved)
}

func TestClosed(t *testing.T) {
	j := start(t, jit.Options{})
	require.NoError(t, j.Close())
	_, err := j.AddIR(context.Background(), "x", []byte(sumIR))
	assert.ErrorIs(t, err, jit.ErrClosed)
}

func TestMissingController(t *testing.T) {
	t.Setenv(jit.ControllerEnv, "")
	t.Setenv("PATH", t.TempDir())
	_, err := jit.Start(context.Background(), jit.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "orcrt-jit-controller not found")
	assert.Contains(t, err.Error(), "apt-get install llvm-22-dev")
}

func TestSystemHeadersAndFlags(t *testing.T) {
	j := start(t, jit.Options{})
	ctx := context.Background()
	m, err := j.AddC(ctx, "hdr.c", "#include <stdint.h>\n#include <string.h>\nint64_t n(int64_t x) { return (int64_t)strlen(\"abc\") * K + x; }", "-DK=10", "-O1")
	require.NoError(t, err)
	fs, err := m.Lookup(ctx, "n")
	require.NoError(t, err)
	assert.Equal(t, int64(31), call1(t, fs[0], 1))
	_, err = j.AddC(ctx, "nohdr.c", "#include <no/such/header.h>\n")
	var ce *jit.CompileError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "fatal error", ce.Diagnostics[0].Severity)
	assert.Equal(t, 1, ce.Diagnostics[0].Line)
}

func compileObject(t *testing.T, src string) []byte {
	t.Helper()
	dir := t.TempDir()
	c, o := filepath.Join(dir, "x.c"), filepath.Join(dir, "x.o")
	require.NoError(t, os.WriteFile(c, []byte(src), 0o644))
	out, err := exec.Command("clang-22", "-c", "-fPIC", "-O2", c, "-o", o).CombinedOutput()
	require.NoError(t, err, "%s", out)
	obj, err := os.ReadFile(o)
	require.NoError(t, err)
	return obj
}

var _ = errors.Is
