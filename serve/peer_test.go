//go:build cgo && linux

package serve

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loopbackPair returns both ends of a loopback TCP connection.
func loopbackPair(t *testing.T, network, addr string) (client, server net.Conn) {
	l, err := net.Listen(network, addr)
	require.NoError(t, err)
	defer l.Close()
	client, err = net.Dial(network, l.Addr().String())
	require.NoError(t, err)
	server, err = l.Accept()
	require.NoError(t, err)
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

func TestPolicy(t *testing.T) {
	p := policy{self: 1000, uids: []int{7}, gids: []int{50}}
	for _, pr := range []peer{{uid: 1000, gid: 1}, {uid: 7, gid: 1}, {uid: 9, gid: 50}, {uid: 9, gid: 1, groups: []uint32{3, 50}}} {
		assert.NoError(t, p.allow(pr), "%+v", pr)
	}
	err := p.allow(peer{network: "unix", uid: 9, gid: 1, groups: []uint32{3}})
	assert.ErrorIs(t, err, errRefused)
	assert.ErrorContains(t, err, "unix peer uid 9 (gid 1) is not allowed")
	assert.Equal(t, "uid", refusalKind(err))

	// This process's own connections: allowed as the serving uid,
	// refused when the policy serves another.
	_, srv := loopbackPair(t, "tcp", "127.0.0.1:0")
	pr, err := policy{self: os.Geteuid()}.check(srv)
	require.NoError(t, err)
	assert.Equal(t, os.Geteuid(), pr.uid)
	_, err = policy{self: os.Geteuid() + 1}.check(srv)
	assert.ErrorIs(t, err, errRefused)

	path := filepath.Join(t.TempDir(), "s.sock")
	_, usrv := loopbackPair(t, "unix", path)
	pr, err = policy{self: os.Geteuid()}.check(usrv)
	require.NoError(t, err)
	assert.Equal(t, os.Getpid(), pr.pid, "SO_PEERCRED's pid")
	assert.Equal(t, os.Getegid(), pr.gid)
	assert.Equal(t, "unix", pr.network)
}
