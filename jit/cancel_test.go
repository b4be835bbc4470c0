//go:build linux && cgo

package jit_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/jit"
)

// slowSource is one C function clang -O2 takes seconds to compile (3.6 s
// for 3,000 lines on the 2-core VM this was written on).
func slowSource(lines int) string {
	var b strings.Builder
	b.WriteString("long slow(long x) {\n")
	for i := range lines {
		fmt.Fprintf(&b, "  x = x * %d + %d; if ((x ^ %d) %% 7 == 1) x ^= x >> %d;\n", i%13+3, i, i, i%5+1)
	}
	b.WriteString("  return x;\n}\n")
	return b.String()
}

// cpuTicks is the CPU time, in clock ticks, of process pid, of its
// children it waited for, and of its live children.
func cpuTicks(t *testing.T, pid int) int64 {
	t.Helper()
	stat := func(pid int, withChildren bool) int64 {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return 0 // exited meanwhile: its time is in its parent's
		}
		// Fields after the command's closing parenthesis: utime and stime
		// are the 12th and 13th, cutime and cstime the 14th and 15th.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
		n := 2
		if withChildren {
			n = 4
		}
		var sum int64
		for _, v := range f[11 : 11+n] {
			x, err := strconv.ParseInt(v, 10, 64)
			require.NoError(t, err)
			sum += x
		}
		return sum
	}
	total := stat(pid, true)
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	require.NoError(t, err)
	for _, task := range tasks {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, task.Name()))
		for _, c := range strings.Fields(string(b)) {
			cpid, err := strconv.Atoi(c)
			require.NoError(t, err)
			total += stat(cpid, false)
		}
	}
	return total
}

// TestCancelStopsCompile: a compile whose context ends stops within a
// bound: the controller and its compile workers use no more CPU for it
// 200 ms after the request returned, and the next compile works.
func TestCancelStopsCompile(t *testing.T) {
	j := start(t, jit.Options{NoCache: true})
	ctx := context.Background()
	_, err := j.AddC(ctx, "warm.c", "long warm(long x) { return x; }")
	require.NoError(t, err)
	pid := j.ControllerPID()

	dctx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err = j.AddC(dctx, "slow.c", slowSource(3000))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(t0), time.Second)

	// The bound: 200 ms after the return, the CPU the controller's tree
	// uses in the next 500 ms is idle's, not a compile's (which would
	// use all of one core).
	time.Sleep(200 * time.Millisecond)
	before := cpuTicks(t, pid)
	time.Sleep(500 * time.Millisecond)
	used := time.Duration(cpuTicks(t, pid)-before) * 10 * time.Millisecond // USER_HZ is 100
	t.Logf("CPU of the controller and its workers 200-700 ms after the deadline: %v", used)
	assert.Less(t, used, 100*time.Millisecond, "the controller kept compiling after the deadline")

	m, err := j.AddC(ctx, "next.c", "long next(long x) { return x + 1; }")
	require.NoError(t, err)
	fs, err := m.Lookup(ctx, "next")
	require.NoError(t, err)
	assert.Equal(t, int64(8), call1(t, fs[0], 7))
}

// TestLinkedModules: a module added with LinkedTo calls another's
// functions; the one it links against cannot be removed before it.
func TestLinkedModules(t *testing.T) {
	j := start(t, jit.Options{})
	ctx := context.Background()
	lib, err := j.AddC(ctx, "lib.c", "long lib_twice(long x) { return 2 * x; }\nstatic long hidden(long x) { return x; }\nlong lib_id(long x) { return hidden(x); }")
	require.NoError(t, err)
	const userSrc = "long lib_twice(long); long user(long x) { return lib_twice(x) + 1; }"

	_, err = j.AddC(ctx, "alone.c", userSrc)
	var le *jit.LinkError
	require.ErrorAs(t, err, &le, "without LinkedTo the module sees no other module")
	assert.Equal(t, []string{"lib_twice"}, le.Missing)

	user, err := j.LinkedTo(lib).AddC(ctx, "user.c", userSrc)
	require.NoError(t, err)
	fs, err := user.Lookup(ctx, "user")
	require.NoError(t, err)
	assert.Equal(t, int64(11), call1(t, fs[0], 5))

	// An object and IR link the same way.
	ir := []byte("declare i64 @lib_twice(i64)\ndefine i64 @quad(i64 %x) {\n  %a = call i64 @lib_twice(i64 %x)\n  %b = call i64 @lib_twice(i64 %a)\n  ret i64 %b\n}\n")
	quad, err := j.LinkedTo(lib).AddIR(ctx, "quad.ll", ir)
	require.NoError(t, err)
	fs, err = quad.Lookup(ctx, "quad")
	require.NoError(t, err)
	assert.Equal(t, int64(12), call1(t, fs[0], 3))

	var inUse *jit.InUseError
	require.ErrorAs(t, lib.Remove(ctx), &inUse)
	assert.Equal(t, "lib.c", inUse.Module)
	assert.Equal(t, []string{"quad.ll", "user.c"}, inUse.Users)
	fs, err = lib.Lookup(ctx, "lib_twice")
	require.NoError(t, err)
	assert.Equal(t, int64(4), call1(t, fs[0], 2), "lib stays loaded")

	require.NoError(t, user.Remove(ctx))
	require.ErrorAs(t, lib.Remove(ctx), &inUse)
	assert.Equal(t, []string{"quad.ll"}, inUse.Users)
	require.NoError(t, quad.Remove(ctx))
	require.NoError(t, lib.Remove(ctx))
	_, err = j.LinkedTo(lib).AddC(ctx, "late.c", userSrc)
	require.ErrorIs(t, err, jit.ErrRemoved)

	other := start(t, jit.Options{})
	m, err := other.AddC(ctx, "m.c", "long m(long x) { return x; }")
	require.NoError(t, err)
	_, err = j.LinkedTo(m).AddC(ctx, "cross.c", userSrc)
	assert.ErrorContains(t, err, "belongs to another JIT")
}
