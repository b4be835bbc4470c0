//go:build cgo && linux

package serve

import (
	"net"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/rt/dialect"
)

// TestWarmUp: the warm-up leaves no descriptor behind, takes nothing
// from the listening sockets, and encodes the Setup the session will
// send.
func TestWarmUp(t *testing.T) {
	ex, err := executor.New(Session{dialect: dialect.Latest}.options())
	require.NoError(t, err)
	defer ex.Close()
	ln, path := testListener(t)
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer tl.Close()
	traw, err := rawListener(tl, "listen="+tl.Addr().String())
	require.NoError(t, err)
	defer traw.file.Close()

	// A connection waiting on each listener must still be there after.
	uc, err := net.Dial("unix", path)
	require.NoError(t, err)
	defer uc.Close()
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		require.NoError(t, err)
		return len(ents)
	}
	before := fds()
	warmUp(ex, Session{}.options().Wire, []int{ln.fd, traw.fd}, policy{self: os.Geteuid()})
	assert.Equal(t, before, fds(), "descriptors")

	nfd, _, err := unix.Accept4(ln.fd, unix.SOCK_CLOEXEC)
	require.NoError(t, err, "the waiting connection")
	_ = unix.Close(nfd)
	payload := ex.BootstrapInfo().SetupPayload()
	assert.Same(t, &payload[0], &ex.BootstrapInfo().SetupPayload()[0], "the Setup payload encoded ahead")
}
