//go:build cgo && linux

package serve

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt"
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

// TestActivity: the idle timeout fires only with no call in flight and
// nothing read for the timeout.
func TestActivity(t *testing.T) {
	a := &activity{}
	a.touch()
	release := make(chan struct{})
	ran := make(chan struct{})
	a.Dispatch(rt.NewTask(func() { close(ran); <-release }))
	<-ran
	fired := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go a.watch(ctx, 40*time.Millisecond, func() { close(fired) })
	select {
	case <-fired:
		t.Fatal("idle while a call runs")
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	select {
	case <-fired:
	case <-time.After(5 * time.Second):
		t.Fatal("never idle after the call returned")
	}
	assert.Zero(t, a.busy.Load())
}

func TestCutField(t *testing.T) {
	h, r, ok := cutField("session\x0012")
	assert.Equal(t, []any{"session", "12", true}, []any{h, r, ok})
	h, _, ok = cutField("ready")
	assert.Equal(t, "ready", h)
	assert.False(t, ok)
}
