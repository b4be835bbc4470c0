package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/examples/internal/exampletest"
)

// TestFilter: llvm-jitlink runs the plugin, which exports filter; the host
// looks it up by name and calls it 1,000,000 times from 8 goroutines.
func TestFilter(t *testing.T) {
	exampletest.Require(t, "/usr/lib/llvm-22/bin/llvm-jitlink")
	host := exampletest.BuildHost(t)
	plugin := exampletest.CompileC(t, "plugin/filter.c")
	r := exampletest.Start(t, host, nil, plugin).Wait()
	require.Equal(t, 0, r.Exit, r.Stderr)
	assert.Contains(t, r.Stdout, "plugin: exported filter\n")
	assert.Regexp(t, `filter: 1000000 calls from 8 goroutines in .*: sum 71428928571, want 71428928571\n`, r.Stderr)
	assert.Contains(t, r.Stderr, "anonymous executable mappings before=0 after=0\n")
}

// replSession defines and exports filter, waits until the host's
// goroutines call it, and quits: clang-repl releases the code under them.
var replSession = strings.Join([]string{
	`extern "C" int orcrt_export(const char *, void *);`,
	`extern "C" void host_hammering(void);`,
	`extern "C" long filter(long x) { return x % 7 == 0 ? x : 0; }`,
	`orcrt_export("filter", (void *)filter); host_hammering();`,
	`%quit`,
}, "\n") + "\n"

// TestReleaseUnderCalls reproduces the crash of a release under running
// calls: clang-repl releases filter's memory at %quit while 8 goroutines
// call it, ORCRT_LIFETIME_RUNS times (default 50; 1000 measured for
// issue 21). Each run must end
// cleanly: no signal, the goroutines refused with ErrReleased (or
// ErrShutDown), and no JIT'd mapping left.
func TestReleaseUnderCalls(t *testing.T) {
	const clangRepl = "/usr/lib/llvm-22/bin/clang-repl"
	exampletest.Require(t, clangRepl)
	runs := 50
	if v, err := strconv.Atoi(os.Getenv("ORCRT_LIFETIME_RUNS")); err == nil {
		runs = v
	}
	if testing.Short() {
		runs = 20
	}
	host := exampletest.BuildHost(t)
	t.Setenv("FILTER_HAMMER", "1")
	var mu sync.Mutex
	refused, overlapped, failed := 0, 0, false
	var wg sync.WaitGroup
	next := make(chan int)
	for range 2 {
		wg.Go(func() {
			for i := range next {
				mu.Lock()
				stop := failed
				mu.Unlock()
				if stop {
					continue
				}
				r := exampletest.StartCommand(t, []byte(replSession), clangRepl,
					"--oop-executor="+host, "--orc-runtime="+exampletest.ORCRuntime).Wait()
				ok := assert.Equal(t, 0, r.Exit, "run %d: %s", i, r.Stderr) &&
					assert.Contains(t, r.Stderr, "anonymous executable mappings before=0 after=0\n", "run %d", i)
				var calls, n int
				_, err := fmt.Sscanf(r.Stderr[max(0, strings.Index(r.Stderr, "filter: hammer:")):], "filter: hammer: %d calls, %d goroutines refused", &calls, &n)
				ok = ok && assert.NoError(t, err, "run %d: %s", i, r.Stderr) && assert.Equal(t, 8, n, "run %d: every goroutine refused", i)
				mu.Lock()
				if ok {
					refused += n
					overlapped++
				}
				failed = failed || !ok
				mu.Unlock()
			}
		})
	}
	for i := range runs {
		next <- i
	}
	close(next)
	wg.Wait()
	t.Logf("%d clang-repl sessions released filter under 8 calling goroutines; %d refusals, no signal", overlapped, refused)
}
