package objcache

import (
	"bytes"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/crossexec"
)

// The helper process: TestTwoProcesses runs this test binary again with
// helperDirEnv naming the shared cache directory.
const (
	helperDirEnv  = "OBJCACHE_TEST_HELPER_DIR"
	helperSeedEnv = "OBJCACHE_TEST_HELPER_SEED"
)

const (
	sharedKeys     = 50
	sharedRounds   = 6
	sharedMaxBytes = 48 << 10 // about half the keys' objects: eviction runs throughout
)

func TestHelperProcess(t *testing.T) {
	dir := os.Getenv(helperDirEnv)
	if dir == "" {
		t.Skip("a helper process of TestTwoProcesses")
	}
	seed, err := strconv.ParseUint(os.Getenv(helperSeedEnv), 10, 64)
	require.NoError(t, err)
	fillShared(t, dir, seed)
}

// fillShared puts and gets the shared keys, in an order drawn from seed,
// and reports an error for any Get returning other bytes than were put.
func fillShared(t *testing.T, dir string, seed uint64) {
	c, err := Open(dir, sharedMaxBytes)
	if err != nil {
		t.Errorf("Open: %v", err)
		return
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	for range sharedRounds {
		for _, i := range rng.Perm(sharedKeys) {
			if err := c.Put(testKey(i), testObject(i)); err != nil && !putMayFail {
				t.Errorf("Put %d: %v", i, err)
			}
			j := rng.IntN(sharedKeys)
			if got, ok := c.Get(testKey(j)); ok && !bytes.Equal(got, testObject(j)) {
				t.Errorf("mismatch: Get %d returned %d other bytes", j, len(got))
			}
		}
	}
	s := c.Stats()
	t.Logf("seed %d: %+v", seed, s)
	if s.Corrupt != 0 && !putMayFail {
		t.Errorf("mismatch: %d corrupt entries found", s.Corrupt)
	}
}

// TestTwoProcesses has two child processes and goroutines of this one
// fill one cache directory at once.
func TestTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	dir := t.TempDir()

	var wg sync.WaitGroup
	outputs := make([][]byte, 2)
	errs := make([]error, 2)
	for p := range outputs {
		// Through the emulator, where the test binary runs under one.
		cmd := crossexec.CommandContext(t.Context(), exe, "-test.run=^TestHelperProcess$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(),
			helperDirEnv+"="+dir,
			helperSeedEnv+"="+strconv.Itoa(10+p))
		wg.Go(func() { outputs[p], errs[p] = cmd.CombinedOutput() })
	}
	for g := range 2 {
		wg.Go(func() { fillShared(t, dir, uint64(g)) })
	}
	wg.Wait()

	for p, out := range outputs {
		require.NoError(t, errs[p], "helper %d:\n%s", p, out)
		require.NotContains(t, string(out), "mismatch", "helper %d", p)
		require.Contains(t, string(out), "--- PASS: TestHelperProcess", "helper %d:\n%s", p, out)
	}
	checkAll(t, dir, sharedKeys)
}
