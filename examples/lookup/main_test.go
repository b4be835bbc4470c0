package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/examples/internal/exampletest"
)

// TestLookup: llvm-jitlink -orc-runtime runs the plugin, which exports
// nothing; the host looks filter up through the controller and calls it,
// and a name the controller does not know ends in its error. With each
// of llvm-jitlink's memory managers (the JIT'd code lives in memory the
// executor maps, or in shared memory the controller writes).
func TestLookup(t *testing.T) {
	exampletest.Require(t, "/usr/lib/llvm-22/bin/llvm-jitlink")
	host := exampletest.BuildHost(t)
	plugin := exampletest.CompileC(t, "plugin/filter.c")
	t.Setenv("LOOKUP_MISSING", "no_such_function")
	for _, memmgr := range []string{"default", "simple-remote", "shared"} {
		t.Run("memmgr="+memmgr, func(t *testing.T) {
			args := []string{"-orc-runtime=" + exampletest.ORCRuntime, plugin}
			if memmgr != "default" {
				args = append([]string{"-use-memmgr=" + memmgr}, args...)
			}
			r := exampletest.Start(t, host, nil, args...).Wait()
			require.Equal(t, 0, r.Exit, r.Stderr)
			assert.Contains(t, r.Stderr, "lookup: filter(20) = 61\n")
			assert.Contains(t, r.Stderr, "lookup: 1000000 calls of filter from 8 goroutines, sum 1499999500000\n")
			assert.Contains(t, r.Stderr, `lookup: missing: executor: lookup of "no_such_function": not exported with orcrt_export; "no_such_function": the controller answered: Symbols not found: [ no_such_function ]: context deadline exceeded`+"\n")
		})
	}
}

// TestLookupWithoutRuntime: without -orc-runtime nothing in the executor
// asks the controller for symbols, so the host cannot either, and says
// why.
func TestLookupWithoutRuntime(t *testing.T) {
	exampletest.Require(t, "/usr/lib/llvm-22/bin/llvm-jitlink")
	host := exampletest.BuildHost(t)
	plugin := exampletest.CompileC(t, "plugin/filter.c")
	t.Setenv("LOOKUP_TIMEOUT", "300ms")
	r := exampletest.Start(t, host, nil, plugin).Wait()
	require.Equal(t, 0, r.Exit, r.Stderr)
	assert.Contains(t, r.Stderr, `lookup: executor: lookup of "filter": not exported with orcrt_export; the controller could not be asked: the ORC runtime has not looked a symbol up through the controller in this session`)
	assert.Contains(t, r.Stderr, "lookup: the controller cannot be asked for JIT'd symbols\n")
}

// TestLookupClangRepl: clang-repl 22 loads the ORC runtime and opens its
// JITDylib through it, but the runtime never looks a symbol up through
// the controller, so the host cannot ask it either; the error names what
// was seen. The input blocks in host_wait until the lookup has given up.
func TestLookupClangRepl(t *testing.T) {
	const clangRepl = "/usr/lib/llvm-22/bin/clang-repl"
	exampletest.Require(t, clangRepl)
	host := exampletest.BuildHost(t)
	t.Setenv("LOOKUP_TIMEOUT", "500ms")
	input := strings.Join([]string{
		`extern "C" long filter(long x) { return 3 * x + 1; }`,
		`extern "C" int host_wait(void);`,
		`int r = host_wait();`,
		`%quit`,
	}, "\n") + "\n"
	r := exampletest.StartCommand(t, []byte(input), clangRepl,
		"--oop-executor="+host, "--orc-runtime="+exampletest.ORCRuntime).Wait()
	require.Equal(t, 0, r.Exit, r.Stderr)
	assert.Regexp(t, `lookup: executor: lookup of "filter": not exported with orcrt_export; the controller could not be asked: the controller opened JITDylib "main" through the ORC runtime \(handle 0x[0-9a-f]+\), but the runtime has not looked a symbol up through the controller \(clang-repl's never does\), so the lookup's tag is unknown: context deadline exceeded\n`, r.Stderr)
	assert.Contains(t, r.Stderr, "lookup: the controller cannot be asked for JIT'd symbols\n")
}

// TestProfileNamesJITCode: with jitsyms.EnableProfiling and the names
// perf support sends (llvm-jitlink -perf-support), a CPU profile of the
// host names the JIT'd filter, as go tool pprof shows it.
func TestProfileNamesJITCode(t *testing.T) {
	exampletest.Require(t, "/usr/lib/llvm-22/bin/llvm-jitlink")
	host := exampletest.BuildHost(t)
	plugin := exampletest.CompileC(t, "plugin/busyfilter.c")
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.pprof")
	t.Setenv("LOOKUP_CPUPROFILE", prof)
	t.Setenv("LOOKUP_CALLS", "100000")
	t.Setenv("JITDUMPDIR", dir)
	r := exampletest.Start(t, host, nil, "-perf-support", "-orc-runtime="+exampletest.ORCRuntime, plugin).Wait()
	require.Equal(t, 0, r.Exit, r.Stderr)
	require.Contains(t, r.Stderr, "lookup: 100000 calls of filter from 8 goroutines, sum 14999950000\n")
	out, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=15", host, prof).CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Logf("go tool pprof -top:\n%s", out)
	assert.Regexp(t, `(?m)^\s+\S+\s+[0-9.]+%\s+[0-9.]+%\s+\S+\s+[0-9.]+%\s+filter$`, string(out), "filter by name, with samples of its own")
}
