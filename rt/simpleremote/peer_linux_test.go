package simpleremote

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPeerPID identifies the controller process behind each kind of
// connection: the parent for inherited descriptors, the peer's
// credentials on a Unix socket, the owner of the other end of a loopback
// TCP connection (here a bash process connected through /dev/tcp).
func TestPeerPID(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	fc := NewFileConn(r, w)
	assert.Equal(t, os.Getppid(), PeerPID(fc), "inherited descriptors")
	fc.Close()

	sock := filepath.Join(t.TempDir(), "s")
	ul, err := ListenUnix(sock)
	require.NoError(t, err)
	dialled := make(chan net.Conn, 1)
	go func() {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Error(err)
		}
		dialled <- c
	}()
	uc, err := ul.Accept(context.Background())
	require.NoError(t, err)
	assert.Equal(t, os.Getpid(), PeerPID(uc), "Unix socket: this process dialled")
	uc.Close()
	if c := <-dialled; c != nil {
		c.Close()
	}

	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash for the TCP peer")
	}
	tl, err := ListenTCP("127.0.0.1", "0")
	require.NoError(t, err)
	port := tl.Addr().(*net.TCPAddr).Port
	peer := exec.Command(bash, "-c", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d; read -t 10 <&3", port))
	require.NoError(t, peer.Start())
	defer func() { _ = peer.Process.Kill(); _ = peer.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tc, err := tl.Accept(ctx)
	require.NoError(t, err)
	defer tc.Close()
	assert.Equal(t, peer.Process.Pid, PeerPID(tc), "loopback TCP")
}
