//go:build linux

package e2e

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPerfSupport: llvm-jitlink -perf-support (LLVM 19 and 22) with
// orcrt-executor writes perf's jitdump file, as the controller's own
// in-process implementation does: code loads named after the JIT'd
// functions with a copy of their code, debug info for code built with -g,
// the unwinding record, and the close record. The stock executors lack
// the functions, which the test checks too, so that it notices the day
// Debian's gain them.
func TestPerfSupport(t *testing.T) {
	requireLLVM(t)
	for _, tch := range toolchains() {
		if tch.major < 19 {
			continue // -perf-support came with LLVM 19
		}
		t.Run(fmt.Sprintf("llvm-%d", tch.major), func(t *testing.T) {
			if tch.missing != "" {
				t.Skip(tch.missing)
			}
			t.Parallel()
			obj := tch.compile(t, []string{"-O1", "-g"}, "perfhot.c")
			dir := t.TempDir()
			env := []string{"JITDUMPDIR=" + dir}
			stock := runJITLink(t, tch, tch.stock, env, []string{"-perf-support", obj})
			assert.Equal(t, 1, stock.exit, "the stock executor\n%s", stock)
			assert.Contains(t, stock.stderr, "Symbols not found: [ llvm_orc_registerJITLoaderPerfStart")

			o := runJITLink(t, tch, orcrtExecutor, env, []string{"-perf-support", obj})
			require.Equal(t, 0, o.exit, "%s", o)
			assert.Equal(t, "17301541512208131533\n", o.stdout)
			dumps, err := filepath.Glob(filepath.Join(dir, ".debug/jit/llvm-IR-jit-*/jit-*.dump"))
			require.NoError(t, err)
			require.Len(t, dumps, 1, "one jitdump file")
			names, kinds := readJitdump(t, dumps[0])
			assert.Contains(t, names, "hot_loop")
			assert.Contains(t, names, "main")
			assert.Equal(t, 3, kinds[len(kinds)-1], "the file ends with the close record")
			assert.Contains(t, kinds, 2, "debug info (built with -g)")
			if targetName == "x86_64" {
				assert.Contains(t, kinds, 4, "unwinding information") // none for aarch64 link graphs
			}
		})
	}
}

// TestPerfProfile: perf names a hot JIT'd function after `perf inject
// --jit`, where perf can record on this machine.
func TestPerfProfile(t *testing.T) {
	requireLLVM(t)
	if targetName != "x86_64" {
		t.Skip("on an emulated target perf samples QEMU, not the executor")
	}
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf is not installed (Debian: linux-perf)")
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "perf.data")
	if out, err := exec.Command(perf, "record", "-q", "-k", "1", "-e", "cpu-clock", "-o", data, "true").CombinedOutput(); err != nil {
		t.Skipf("perf cannot record here: %v\n%s", err, out)
	}
	obj := primary.compile(t, []string{"-O1", "-g"}, "perfhot.c")
	rec := exec.Command(perf, "record", "-q", "-k", "1", "-e", "cpu-clock", "-o", data, "--",
		primary.jitlink, "-perf-support", "-oop-executor="+orcrtExecutor, obj, "-args", "perfhot", "long") // argv[0] first: argc 2, the long loop
	rec.Env = append(os.Environ(), "JITDUMPDIR="+dir)
	rec.Dir = dir // perf inject writes the per-function objects beside the dump
	out, err := rec.CombinedOutput()
	require.NoError(t, err, "%s", out)
	jitted := filepath.Join(dir, "perf.jit.data")
	out, err = exec.Command(perf, "inject", "--jit", "-i", data, "-o", jitted).CombinedOutput()
	require.NoError(t, err, "perf inject: %s", out)
	out, err = exec.Command(perf, "report", "-i", jitted, "--stdio", "-q", "--sort", "comm,sym").CombinedOutput()
	require.NoError(t, err, "perf report: %s", out)
	top := strings.SplitN(strings.TrimSpace(string(out)), "\n", 2)[0]
	t.Logf("perf report's first line: %s", top)
	if !strings.Contains(top, "hot_loop") {
		t.Logf("perf report:\n%s", out)
	}
	assert.Contains(t, top, "orcrt-executor", "the hottest symbol is the executor's")
	assert.Contains(t, top, "hot_loop", "and perf names the JIT'd function")
}

// readJitdump returns the names of a jitdump file's code loads and the
// types of its records, in order.
func readJitdump(t *testing.T, path string) (names []string, kinds []int) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	le := binary.LittleEndian
	require.GreaterOrEqual(t, len(b), 40)
	require.Equal(t, uint32(0x4A695444), le.Uint32(b), "jitdump magic")
	b = b[le.Uint32(b[8:]):]
	for len(b) >= 16 {
		id, n := le.Uint32(b), le.Uint32(b[4:])
		require.GreaterOrEqual(t, int(n), 16)
		require.LessOrEqual(t, int(n), len(b), "record %d overruns the file", len(kinds))
		kinds = append(kinds, int(id))
		if id == 0 { // code load: pid, tid, vma, addr, size, index, name
			body := b[16+40 : n]
			names = append(names, string(body[:max(0, strings.IndexByte(string(body), 0))]))
		}
		b = b[n:]
	}
	require.Empty(t, b, "trailing bytes")
	return names, kinds
}

// TestCrashReportNames: with perf support, or the debug objects of code
// built with -g, the executor knows the JIT'd functions' names, and its
// fatal-signal line names the faulting one and the JIT'd callers found on
// the stack, innermost first, in pipe and TCP mode; the executor still
// dies by the signal.
func TestCrashReportNames(t *testing.T) {
	requireLLVM(t)
	obj := primary.compile(t, []string{"-O1"}, "segv3.c")
	callers := `, called from f2\+0x[0-9a-f]+, f1\+0x[0-9a-f]+, main\+0x[0-9a-f]+`
	if targetName != "x86_64" {
		// Under QEMU user mode the stack scan finds no caller (seen with
		// the arm64 executor); the faulting function is still named.
		callers = `(, called from .*)?`
	}
	want := regexp.MustCompile(`orcrt-executor: SIGSEGV \(segmentation fault\) in native code, address 0x0, pc 0x[0-9a-f]+ ` +
		`in f3\+0x[0-9a-f]+` + callers + `\n`)
	env := []string{"JITDUMPDIR=" + t.TempDir()}
	o := runJITLink(t, primary, orcrtExecutor, env, []string{"-perf-support", obj})
	assert.Equal(t, 128+int(syscall.SIGSEGV), o.executorExit, "killed by the signal\n%s", o)
	assert.Regexp(t, want, o.stderr)

	o = runJITLinkTCP(t, primary, orcrtExecutor, env, []string{"-perf-support", obj})
	assert.Regexp(t, want, o.executorErr, "TCP\n%s", o)

	// Without perf support or debug information the line is the plain one.
	o = runJITLink(t, primary, orcrtExecutor, nil, []string{obj})
	assert.Regexp(t, `orcrt-executor: SIGSEGV \(segmentation fault\) in native code, address 0x0, pc 0x[0-9a-f]+\n`, o.stderr)

	// Built with -g, the program's debug object (JITLoaderGDB, every
	// release from 16) names the functions without perf support.
	for _, tch := range toolchains() {
		if tch.major < 16 || tch.missing != "" {
			continue
		}
		objg := tch.compile(t, []string{"-O1", "-g"}, "segv3.c")
		o := runJITLink(t, tch, orcrtExecutor, nil, []string{objg})
		assert.Regexp(t, want, o.stderr, "LLVM %d, debug object", tch.major)
	}
}
