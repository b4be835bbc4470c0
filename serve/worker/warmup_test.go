//go:build cgo && linux

package worker

import (
	"net"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/serve/internal/peer"
)

// TestWarmUp: the warm-up leaves no descriptor behind, takes nothing
// from the listening sockets, and encodes the Setup the session will
// send.
func TestWarmUp(t *testing.T) {
	ex, err := executor.New(Session{dialect: dialect.Latest}.options())
	require.NoError(t, err)
	defer ex.Close()
	ufd, path := testListener(t, "unix")
	tfd, _ := testListener(t, "tcp")

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
	warmUp(ex, Session{}.options().Wire, []int{ufd, tfd}, peer.Policy{Self: os.Geteuid()})
	assert.Equal(t, before, fds(), "descriptors")

	nfd, _, err := unix.Accept4(ufd, unix.SOCK_CLOEXEC)
	require.NoError(t, err, "the waiting connection")
	_ = unix.Close(nfd)
	payload := ex.BootstrapInfo().SetupPayload()
	assert.Same(t, &payload[0], &ex.BootstrapInfo().SetupPayload()[0], "the Setup payload encoded ahead")
}
