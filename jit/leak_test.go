//go:build linux && cgo

package jit_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/jit"
)

// TestThousandModules adds and removes 1,000 modules: no mapping or
// descriptor of this process stays behind, and the controller's memory
// stops growing.
func TestThousandModules(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	j := start(t, jit.Options{})
	ctx := context.Background()
	obj := compileObject(t, "long f(long x) { return x + 1; } long g(long x) { return x * 2; }")
	cycle := func(i int) {
		m, err := j.AddObject(ctx, fmt.Sprintf("m%d", i), obj)
		require.NoError(t, err)
		fs, err := m.Lookup(ctx, "f", "g")
		require.NoError(t, err)
		require.Equal(t, int64(i+1), call1(t, fs[0], int64(i)))
		require.NoError(t, m.Remove(ctx))
	}
	for i := range 50 { // warm-up: pools, the first slabs
		cycle(i)
	}
	before, _ := os.ReadFile("/proc/self/maps")
	maps0, fds0, rss0 := countMaps(t), countFDs(t), rssKiB(t, j.ControllerPID())
	for i := range n {
		cycle(i)
		if i == n/2 {
			maps0, rss0 = countMaps(t), rssKiB(t, j.ControllerPID())
		}
	}
	maps1, fds1, rss1 := countMaps(t), countFDs(t), rssKiB(t, j.ControllerPID())
	t.Logf("%d modules: mappings %d (half-way) -> %d, descriptors %d -> %d, controller RSS %d KiB (half-way) -> %d KiB", n, maps0, maps1, fds0, fds1, rss0, rss1)
	// Under -race, the race runtime and malloc add a few dozen mappings
	// as threads come and go (1 MiB regions, an arena): a leak of one per
	// module would add n/2.
	if !assert.LessOrEqual(t, maps1, maps0+n/10, "mappings") {
		after, _ := os.ReadFile("/proc/self/maps")
		t.Logf("before:\n%s\nafter:\n%s", before, after)
	}
	assert.LessOrEqual(t, fds1, fds0, "descriptors")
	assert.Less(t, rss1, rss0+rss0/5, "the controller's RSS grows by more than 20% over the second half")
}

func countMaps(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/maps")
	require.NoError(t, err)
	return strings.Count(string(b), "\n")
}

func countFDs(t *testing.T) int {
	es, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	return len(es)
}

func rssKiB(t *testing.T, pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			require.NoError(t, err)
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}
