//go:build cgo && linux

package peer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/nettest"
)

func TestPolicy(t *testing.T) {
	p := Policy{Self: 1000, UIDs: []int{7}, GIDs: []int{50}}
	for _, pr := range []Peer{{UID: 1000, GID: 1}, {UID: 7, GID: 1}, {UID: 9, GID: 50}, {UID: 9, GID: 1, Groups: []uint32{3, 50}}} {
		assert.NoError(t, p.Allow(pr), "%+v", pr)
	}
	err := p.Allow(Peer{Network: "unix", UID: 9, GID: 1, Groups: []uint32{3}})
	assert.ErrorIs(t, err, ErrRefused)
	assert.ErrorContains(t, err, "unix peer uid 9 (gid 1) is not allowed")
	assert.Equal(t, "uid", Kind(err))

	// This process's own connections: allowed as the serving uid,
	// refused when the policy serves another.
	_, srv := nettest.LoopbackPair(t, "tcp", "127.0.0.1:0")
	pr, err := Policy{Self: os.Geteuid()}.Check(srv)
	require.NoError(t, err)
	assert.Equal(t, os.Geteuid(), pr.UID)
	_, err = Policy{Self: os.Geteuid() + 1}.Check(srv)
	assert.ErrorIs(t, err, ErrRefused)

	path := filepath.Join(t.TempDir(), "s.sock")
	_, usrv := nettest.LoopbackPair(t, "unix", path)
	pr, err = Policy{Self: os.Geteuid()}.Check(usrv)
	require.NoError(t, err)
	assert.Equal(t, os.Getpid(), pr.PID, "SO_PEERCRED's pid")
	assert.Equal(t, os.Getegid(), pr.GID)
	assert.Equal(t, "unix", pr.Network)
}
