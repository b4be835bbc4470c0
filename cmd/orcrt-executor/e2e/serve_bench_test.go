//go:build linux

package e2e

import (
	"bytes"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// BenchmarkServeConnectSetup: connect → the first byte of Setup through
// `orcrt-executor serve` over its Unix socket, each time from a pool
// whose one worker is ready and accepting (the refill is not timed).
// ORCRT_E2E_EXECUTOR names another build to compare (issue 42: before
// and after serve became a package); on a loaded machine the figure is
// mostly its scheduling.
func BenchmarkServeConnectSetup(b *testing.B) {
	requireLLVM(b)
	if emuRoot != "" {
		b.Skip("serve is measured on the host only")
	}
	dir := b.TempDir()
	sock, status := filepath.Join(dir, "s.sock"), filepath.Join(dir, "status.sock")
	srv := exec.Command(orcrtExecutor, "serve", "-pool=1", "-status="+status, "unix="+sock)
	require.NoError(b, srv.Start())
	defer func() {
		_ = srv.Process.Signal(syscall.SIGTERM)
		_ = srv.Wait()
	}()
	ready := func() {
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			c, err := net.Dial("unix", status)
			if err != nil {
				continue
			}
			st, _ := io.ReadAll(c)
			c.Close()
			if bytes.Contains(st, []byte("pool idle=1 starting=0 size=1 accepting=1")) && bytes.Contains(st, []byte("sessions active=0 ")) {
				return
			}
		}
		b.Fatal("serve's pool never got ready")
	}
	var first [1]byte
	for b.Loop() {
		b.StopTimer()
		ready()
		b.StartTimer()
		c, err := net.Dial("unix", sock)
		require.NoError(b, err)
		_, err = c.Read(first[:])
		require.NoError(b, err, "reading Setup")
		b.StopTimer()
		c.Close()
		b.StartTimer()
	}
}
