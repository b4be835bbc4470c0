//go:build linux && cgo

package jit_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/jit"
)

const kSource = "long k(long x) { return x * K; }"

// addK adds kSource with -DK=<k> and returns k(2).
func addK(t *testing.T, j *jit.JIT, k string) int64 {
	t.Helper()
	ctx := context.Background()
	m, err := j.AddC(ctx, "k.c", kSource, "-DK="+k)
	require.NoError(t, err)
	defer func() { require.NoError(t, m.Remove(ctx)) }()
	fs, err := m.Lookup(ctx, "k")
	require.NoError(t, err)
	return call1(t, fs[0], 2)
}

// cacheEntries returns the cache's entry files.
func cacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.HasPrefix(d.Name(), ".") {
			out = append(out, p)
		}
		return err
	}))
	return out
}

// TestCacheHit: the same C source and flags again is linked from the
// cache, other flags are compiled, and IR is cached alike.
func TestCacheHit(t *testing.T) {
	dir := t.TempDir()
	j := start(t, jit.Options{CacheDir: dir})
	assert.Equal(t, int64(6), addK(t, j, "3"))
	assert.Equal(t, int64(6), addK(t, j, "3"))
	assert.Equal(t, int64(8), addK(t, j, "4"), "other flags: another object")
	assert.Equal(t, jit.CacheStats{Hits: 1, Misses: 2}, j.CacheStats())
	assert.Len(t, cacheEntries(t, dir), 2)

	ir := []byte("define i64 @twice(i64 %x) {\n  %r = mul i64 %x, 2\n  ret i64 %r\n}\n")
	ctx := context.Background()
	for range 2 {
		m, err := j.AddIR(ctx, "twice.ll", ir)
		require.NoError(t, err)
		fs, err := m.Lookup(ctx, "twice")
		require.NoError(t, err)
		assert.Equal(t, int64(42), call1(t, fs[0], 21))
		require.NoError(t, m.Remove(ctx))
	}
	assert.Equal(t, jit.CacheStats{Hits: 2, Misses: 3}, j.CacheStats())
}

// TestCacheDamagedEntry: an entry truncated, with a flipped bit, or cut
// half-way as a writer that died would leave it is found, dropped and
// compiled anew; nothing garbled is linked.
func TestCacheDamagedEntry(t *testing.T) {
	for name, damage := range map[string]func(b []byte) []byte{
		"truncated":    func(b []byte) []byte { return b[:len(b)-1] },
		"flipped":      func(b []byte) []byte { b[len(b)/2] ^= 0x10; return b },
		"half-written": func(b []byte) []byte { return b[:len(b)/2] },
		"empty":        func(b []byte) []byte { return nil },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			j := start(t, jit.Options{CacheDir: dir})
			assert.Equal(t, int64(10), addK(t, j, "5"))
			entries := cacheEntries(t, dir)
			require.Len(t, entries, 1)
			b, err := os.ReadFile(entries[0])
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(entries[0], damage(b), 0o600))

			assert.Equal(t, int64(10), addK(t, j, "5"))
			assert.Equal(t, jit.CacheStats{Misses: 2, Corrupt: 1}, j.CacheStats())
			assert.Equal(t, int64(10), addK(t, j, "5"), "the entry written anew")
			assert.Equal(t, int64(1), j.CacheStats().Hits)
		})
	}
}

// TestNoCache keeps nothing on disk.
func TestNoCache(t *testing.T) {
	dir := t.TempDir()
	j := start(t, jit.Options{CacheDir: dir, NoCache: true})
	assert.Equal(t, int64(14), addK(t, j, "7"))
	assert.Equal(t, int64(14), addK(t, j, "7"))
	assert.Empty(t, cacheEntries(t, dir))
	assert.Equal(t, jit.CacheStats{}, j.CacheStats())
}
