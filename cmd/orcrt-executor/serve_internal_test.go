//go:build cgo && linux

package main

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]uint64{"": 0, "4096": 4096, "8K": 8 << 10, "2m": 2 << 20, "4G": 4 << 30, "1T": 1 << 40} {
		got, err := parseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"G", "4GB", "-1", "x"} {
		_, err := parseSize(in)
		assert.Error(t, err, in)
	}
}

func TestParseServe(t *testing.T) {
	cfg, err := parseServe([]string{"-pool=3", "-max-sessions=9", "-allow-uid=0,12", "-allow-gid=root", "-rlimit-as=1G",
		"-rlimit-cpu=90s", "-idle-timeout=1m", "unix=/x", "listen=:0"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, []string{"unix=/x", "listen=:0"}, cfg.addrs)
	assert.Equal(t, 3, cfg.pool)
	assert.Equal(t, 9, cfg.maxSessions)
	assert.Equal(t, []int{0, 12}, cfg.policy.uids)
	assert.Equal(t, []int{0}, cfg.policy.gids)
	assert.Equal(t, workerLimits{as: 1 << 30, cpu: 90 * time.Second, idle: time.Minute}, cfg.limits)
	assert.Equal(t, []string{workerArg, "-as=1073741824", "-cpu=1m30s", "-idle=1m0s"}, cfg.limits.args())

	t.Setenv("LISTEN_FDS", "")
	_, err = parseServe(nil, io.Discard)
	assert.ErrorContains(t, err, "no address")
	_, err = parseServe([]string{"-pool=-1", "unix=/x"}, io.Discard)
	assert.Error(t, err)
	_, err = parseServe([]string{"-allow-uid=no-such-user-orcrt", "unix=/x"}, io.Discard)
	assert.ErrorContains(t, err, "-allow-uid")
}

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
