//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/llvmtools"
)

// TestLLVMMemoryAccess: LLVM 22's own SimpleRemoteEPC (bench/cppdriver,
// built against llvm-22-dev) writes 1 MiB into reserved memory and reads
// it back, once checked and then a few times more, over pipes and over
// loopback TCP, to orcrt-executor, which reads such a write from the
// connection straight to its address (docs/protocol.md §5.3), and to the
// stock executor.
func TestLLVMMemoryAccess(t *testing.T) {
	requireLLVM(t)
	if emuRoot != "" {
		t.Skip("the driver starts the executor itself, natively")
	}
	script, err := filepath.Abs("../../../bench/cppdriver/build.sh")
	require.NoError(t, err)
	// In an install directory, so that orcrt identifies LLVM 22 by its path.
	drv := filepath.Join(t.TempDir(), "llvm-22", "bin", "cppdriver")
	out, err := exec.Command(script, drv).CombinedOutput()
	require.NoError(t, err, "%s", out)
	if _, err := os.Stat(drv); err != nil {
		if llvmtools.Required() {
			t.Fatalf("%s=1 but the driver was not built: %s", llvmtools.RequireEnv, out)
		}
		t.Skip(string(out))
	}
	for _, ex := range []struct{ name, path string }{{"orcrt", orcrtExecutor}, {"stock", stockExecutor}} {
		for _, transport := range []string{"pipe", "tcp"} {
			t.Run(ex.name+"/"+transport, func(t *testing.T) {
				args := []string{"-label", ex.name, ex.path, "write1MiB", "3x"}
				if transport == "tcp" {
					args = append([]string{"-tcp"}, args...)
				}
				out, err := exec.Command(drv, args...).CombinedOutput()
				require.NoError(t, err, "%s", out)
				assert.Contains(t, string(out), "call=write1MiB/executor="+ex.name)
			})
		}
	}
}
