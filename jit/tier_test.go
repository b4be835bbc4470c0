//go:build linux && cgo

package jit_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/jit"
	"github.com/orcgo/orcrt/native"
)

// builtTier returns the highest tier up to want that this build has: a
// tier its Go release or GOARCH lacks is skipped, as Facts.MaxTier does.
func builtTier(want call.Tier) call.Tier {
	has := map[call.Tier]bool{
		call.TierCgo:         true,
		call.TierSystemStack: call.Facts{Calls: call.CallsNonBlocking}.MaxTier() == call.TierSystemStack,
		call.TierGoStack:     call.Facts{Calls: call.CallsNothing, HasStackSize: true}.MaxTier() == call.TierGoStack,
	}
	for ; want > call.TierCgo && !has[want]; want-- {
	}
	return want
}

// tierCase is a function a module defines, the facts its link must prove
// and the tier they allow (before builtTier).
type tierCase struct {
	name  string
	calls call.Calls
	stack bool   // a stack size is known
	min   uint64 // at least this stack size, when known
	max   uint64 // at most (0: min exactly)
	tier  call.Tier
}

// checkTiers checks each case's facts and the Func Lookup returns.
func checkTiers(t *testing.T, m *jit.Module, cases ...tierCase) []call.Func {
	t.Helper()
	fs := make([]call.Func, len(cases))
	for i, c := range cases {
		facts, ok := m.Facts(c.name)
		require.True(t, ok, "%s has facts", c.name)
		assert.Equal(t, c.calls, facts.Calls, "%s: calls", c.name)
		assert.Equal(t, c.stack, facts.HasStackSize, "%s: stack size known", c.name)
		if c.stack {
			hi := max(c.max, c.min)
			assert.True(t, facts.StackSize >= c.min && facts.StackSize <= hi,
				"%s: stack size %d, want %d to %d", c.name, facts.StackSize, c.min, hi)
		}
		got, err := m.Lookup(context.Background(), c.name)
		require.NoError(t, err)
		fs[i] = got[0]
		want := builtTier(c.tier)
		assert.Equal(t, want, fs[i].MaxTier(), "%s: max tier (facts %+v)", c.name, facts)
		assert.Equal(t, want, fs[i].Tier(), "%s: tier", c.name)
	}
	return fs
}

// redZone is the stack below its stack pointer a leaf function may use
// on x86-64, which its stack-size entry leaves out.
var redZone = map[string]uint64{"amd64": 128}[runtime.GOARCH]

func TestTierLeaves(t *testing.T) {
	j := start(t, jit.Options{})
	m, err := j.AddC(context.Background(), "leaves", `
long inc(long x) { return x + 1; }
long arr(long i) {
	volatile long a[100];
	for (long j = 0; j < 100; j++)
		a[j] = j * i;
	return a[i % 100];
}
`)
	require.NoError(t, err)
	fs := checkTiers(t, m,
		tierCase{name: "inc", calls: call.CallsNothing, stack: true, tier: call.TierGoStack},
		tierCase{name: "arr", calls: call.CallsNothing, stack: true, min: 800 - redZone, max: 900, tier: call.TierGoStack})
	assert.Equal(t, int64(42), call1(t, fs[0], 41))
	assert.Equal(t, int64(49), call1(t, fs[1], 7))
}

func TestTierCallsInModule(t *testing.T) {
	j := start(t, jit.Options{})
	m, err := j.AddC(context.Background(), "callers", `
#include <unistd.h>
__attribute__((noinline)) long leaf(long x) { return x * 3; }
long caller(long x) { return leaf(x) + 1; }
long tail(long x) { return leaf(x + 1); }
__attribute__((noinline)) long fib(long n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__attribute__((noinline)) long pid(long x) { return getpid() + x; }
long wrap(long x) { return pid(x) + 1; }
long via(long (*f)(long), long x) { return f(x) + 1; }
long via_tail(long (*f)(long), long x) { return f(x); }
`)
	require.NoError(t, err)
	fs := checkTiers(t, m,
		tierCase{name: "leaf", calls: call.CallsNothing, stack: true, tier: call.TierGoStack},
		tierCase{name: "caller", calls: call.CallsNonBlocking, stack: true, max: 64, tier: call.TierSystemStack},
		// A tail call leaves the function: not a leaf.
		tierCase{name: "tail", calls: call.CallsNonBlocking, stack: true, max: 64, tier: call.TierSystemStack},
		// Recursion: a call, to a function that qualifies (itself).
		tierCase{name: "fib", calls: call.CallsNonBlocking, stack: true, max: 64, tier: call.TierSystemStack},
		// getpid is a system call, in libc: not on the list.
		tierCase{name: "pid", calls: call.CallsUnknown, stack: true, max: 64, tier: call.TierCgo},
		// A caller of a function that does not qualify does not either.
		tierCase{name: "wrap", calls: call.CallsUnknown, stack: true, max: 64, tier: call.TierCgo},
		tierCase{name: "via", calls: call.CallsUnknown, stack: true, max: 64, tier: call.TierCgo},
		tierCase{name: "via_tail", calls: call.CallsUnknown, stack: true, max: 64, tier: call.TierCgo})
	assert.Equal(t, int64(13), call1(t, fs[1], 4))
	assert.Equal(t, int64(15), call1(t, fs[2], 4))
	assert.Equal(t, int64(55), call1(t, fs[3], 10))
	assert.Equal(t, int64(os.Getpid()+2), call1(t, fs[4], 2))
	assert.Equal(t, int64(os.Getpid()+3), call1(t, fs[5], 2))
	leafAddr, err := m.Addrs(context.Background(), "leaf")
	require.NoError(t, err)
	via := call.Typed2[int64, uintptr, int64](fs[6])
	got, err := via.Call(leafAddr[0], 5)
	require.NoError(t, err)
	assert.Equal(t, int64(16), got)
	got, err = call.Typed2[int64, uintptr, int64](fs[7]).Call(leafAddr[0], 5)
	require.NoError(t, err)
	assert.Equal(t, int64(15), got)
}

func TestTierLibraryCalls(t *testing.T) {
	j := start(t, jit.Options{})
	ctx := context.Background()
	require.NoError(t, j.AddLibrary(ctx, "libm.so.6"))
	// -fno-builtin: the calls stay calls.
	m, err := j.AddC(ctx, "libcalls", `
#include <math.h>
#include <string.h>
#include <unistd.h>
double root(double x) { return sqrt(x) + 1; }
long cp(long *dst, const long *src, long n) { memcpy(dst, src, n * sizeof *dst); return dst[n - 1]; }
long nap(long us) { return usleep(us) + 1; }
`, "-fno-builtin")
	require.NoError(t, err)
	fs := checkTiers(t, m,
		tierCase{name: "root", calls: call.CallsNonBlocking, stack: true, max: 64, tier: call.TierSystemStack},
		tierCase{name: "cp", calls: call.CallsNonBlocking, stack: true, max: 64, tier: call.TierSystemStack},
		tierCase{name: "nap", calls: call.CallsUnknown, stack: true, max: 64, tier: call.TierCgo})
	got, err := call.Typed1[float64, float64](fs[0]).Call(16)
	require.NoError(t, err)
	assert.Equal(t, 5.0, got)
	src, dst := []int64{1, 2, 3}, make([]int64, 3)
	n, err := call.Typed3[int64, unsafe.Pointer, unsafe.Pointer, int64](fs[1]).Call(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), 3)
	require.NoError(t, err)
	assert.Equal(t, int64(3), n)
	assert.Equal(t, src, dst)
	assert.Equal(t, int64(1), call1(t, fs[2], 1))
}

func TestTierVariableFrame(t *testing.T) {
	j := start(t, jit.Options{})
	m, err := j.AddC(context.Background(), "vla", `
long vla(long n) {
	volatile char buf[n];
	for (long i = 0; i < n; i++)
		buf[i] = (char)i;
	return buf[n - 1];
}
`)
	require.NoError(t, err)
	// LLVM records no stack size for a frame of variable size.
	fs := checkTiers(t, m, tierCase{name: "vla", calls: call.CallsNothing, tier: call.TierSystemStack})
	assert.Equal(t, int64(9), call1(t, fs[0], 10))
}

// TestTierObjects: objects compiled elsewhere keep what their producer
// put in (clang's small code model: direct calls and jumps).
func TestTierObjects(t *testing.T) {
	j := start(t, jit.Options{})
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "inc.c")
	require.NoError(t, os.WriteFile(src, []byte(`
#include <string.h>
__attribute__((noinline)) long inc(long x) { return x + 1; }
long tail(long x) { return inc(x * 2); }
long cp(long *dst, const long *src, long n) { memcpy(dst, src, n * sizeof *dst); return dst[n - 1]; }
`), 0o644))
	for _, tc := range []struct {
		flags []string
		stack bool
		tier  call.Tier
	}{
		{nil, false, call.TierSystemStack},
		{[]string{"-fstack-size-section"}, true, call.TierGoStack},
		{[]string{"-fstack-size-section", "-ffunction-sections"}, true, call.TierGoStack},
	} {
		obj := filepath.Join(dir, "inc.o")
		args := append([]string{"-c", "-O2", "-fPIC", "-fno-builtin", src, "-o", obj}, tc.flags...)
		out, err := exec.Command("/usr/lib/llvm-22/bin/clang", args...).CombinedOutput()
		require.NoError(t, err, "%s", out)
		data, err := os.ReadFile(obj)
		require.NoError(t, err)
		m, err := j.AddObject(ctx, "inc.o", data)
		require.NoError(t, err)
		fs := checkTiers(t, m,
			tierCase{name: "inc", calls: call.CallsNothing, stack: tc.stack, tier: tc.tier},
			// A direct jump out of the function: a tail call, not a leaf.
			tierCase{name: "tail", calls: call.CallsNonBlocking, stack: tc.stack, tier: call.TierSystemStack},
			// memcpy through a PLT stub, or straight when libc is near.
			tierCase{name: "cp", calls: call.CallsNonBlocking, stack: tc.stack, max: 64, tier: call.TierSystemStack})
		assert.Equal(t, int64(8), call1(t, fs[0], 7), tc.flags)
		assert.Equal(t, int64(15), call1(t, fs[1], 7), tc.flags)
		src, dst := []int64{4, 5}, make([]int64, 2)
		n, err := call.Typed3[int64, unsafe.Pointer, unsafe.Pointer, int64](fs[2]).Call(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), 2)
		require.NoError(t, err)
		assert.Equal(t, int64(5), n)
		assert.Equal(t, src, dst)
	}
}

func TestTierIR(t *testing.T) {
	j := start(t, jit.Options{})
	m, err := j.AddIR(context.Background(), "sum.ll", []byte(sumIR))
	require.NoError(t, err)
	fs := checkTiers(t, m, tierCase{name: "sum3", calls: call.CallsNothing, stack: true, tier: call.TierGoStack})
	got, err := call.Typed3[int64, int64, int64, int64](fs[0]).Call(1, 2, 3)
	require.NoError(t, err)
	assert.Equal(t, int64(6), got)
}

func TestTierAtTier(t *testing.T) {
	j := start(t, jit.Options{})
	m, err := j.AddC(context.Background(), "attier", `
#include <unistd.h>
long pid(long x) { return getpid() + x; }
long inc(long x) { return x + 1; }
`)
	require.NoError(t, err)
	fs, err := m.Lookup(context.Background(), "pid", "inc")
	require.NoError(t, err)
	pid, inc := fs[0], fs[1]
	require.Equal(t, call.TierCgo, pid.MaxTier())
	_, err = pid.AtTier(call.TierGoStack)
	assert.Error(t, err)
	_, err = pid.AtTier(call.TierSystemStack)
	assert.Error(t, err)
	low, err := pid.AtTier(call.TierCgo)
	require.NoError(t, err)
	assert.Equal(t, int64(os.Getpid()+1), call1(t, low, 1))

	// A leaf may be called lower than its facts allow, never higher.
	low, err = inc.AtTier(call.TierCgo)
	require.NoError(t, err)
	assert.Equal(t, call.TierCgo, low.Tier())
	assert.Equal(t, inc.MaxTier(), low.MaxTier())
	assert.Equal(t, int64(3), call1(t, low, 2))
	back, err := low.AtTier(inc.MaxTier())
	require.NoError(t, err)
	assert.Equal(t, int64(4), call1(t, back, 3))
}

// TestTierStackSizesMatchReadobj: the stack sizes a compile's facts hold
// are those llvm-readobj reads from its object, which the compile cache
// keeps with the section, so that a hit has the same facts.
func TestTierStackSizesMatchReadobj(t *testing.T) {
	dir := t.TempDir()
	j := start(t, jit.Options{CacheDir: dir})
	ctx := context.Background()
	src := `
long inc(long x) { return x + 1; }
__attribute__((noinline)) long big(long i) {
	volatile long a[300];
	for (long j = 0; j < 300; j++)
		a[j] = j;
	return a[i % 300];
}
long callbig(long i) { return big(i) + 1; }
long vla(long n) { volatile char b[n]; b[0] = 1; return b[0]; }
`
	m, err := j.AddC(ctx, "sizes.c", src)
	require.NoError(t, err)
	entries := cacheEntries(t, dir)
	require.Len(t, entries, 1)
	data, err := os.ReadFile(entries[0])
	require.NoError(t, err)
	at := strings.Index(string(data), "\x7fELF")
	require.GreaterOrEqual(t, at, 0, "an object in the cache entry")
	obj := filepath.Join(t.TempDir(), "sizes.o")
	require.NoError(t, os.WriteFile(obj, data[at:], 0o644))
	out, err := exec.Command("/usr/lib/llvm-22/bin/llvm-readobj", "--stack-sizes", obj).CombinedOutput()
	require.NoError(t, err, "%s", out)
	want := map[string]uint64{}
	for _, e := range regexp.MustCompile(`Functions: \[([^\]]*)\]\s*Size: 0x([0-9A-Fa-f]+)`).FindAllStringSubmatch(string(out), -1) {
		size, err := strconv.ParseUint(e[2], 16, 64)
		require.NoError(t, err)
		for _, name := range strings.Split(e[1], ",") {
			want[strings.TrimSpace(name)] = size
		}
	}
	require.Len(t, want, 3, "%s", out) // inc, big, callbig: no vla
	hit, err := j.AddC(ctx, "sizes.c", src)
	require.NoError(t, err)
	require.Equal(t, jit.CacheStats{Hits: 1, Misses: 1}, j.CacheStats())
	for _, mod := range []*jit.Module{m, hit} {
		for _, name := range []string{"inc", "big", "callbig", "vla"} {
			f, ok := mod.Facts(name)
			require.True(t, ok, name)
			size, known := want[name]
			assert.Equal(t, known, f.HasStackSize, name)
			assert.Equal(t, size, f.StackSize, name)
		}
	}
}

// A function that calls into Go through a host symbol (here the
// SimpleRemoteEPC dispatch function, whose C entry calls a Go handler)
// is never called at a fast tier, even if the call is never taken.
func TestTierHostCallback(t *testing.T) {
	j := start(t, jit.Options{HostSymbols: []executor.HostSymbol{{Name: "host_dispatch", Addr: native.DispatchFnAddr()}}})
	m, err := j.AddC(context.Background(), "callback", `
long host_dispatch(void *, const void *, long);
long maybe_back(long x) { return x < 0 ? host_dispatch(0, 0, 0) : x + 1; }
`)
	require.NoError(t, err)
	fs := checkTiers(t, m, tierCase{name: "maybe_back", calls: call.CallsUnknown, stack: true, max: 64, tier: call.TierCgo})
	assert.Equal(t, int64(8), call1(t, fs[0], 7))
	_, err = fs[0].AtTier(call.TierSystemStack)
	assert.ErrorContains(t, err, "above what the function's facts allow")
}
