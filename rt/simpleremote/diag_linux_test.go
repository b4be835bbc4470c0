package simpleremote

import (
	"errors"
	"net"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestPeerSocket: the controller's socket of a loopback connection, as
// sock_diag and /proc/net/tcp{,6} find it, over IPv4 and IPv6: the same
// inode, owned by this process's uid.
func TestPeerSocket(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		t.Run(addr, func(t *testing.T) {
			l, err := net.Listen("tcp", addr)
			if err != nil {
				t.Skip(err) // no IPv6 loopback
			}
			defer l.Close()
			c, err := net.Dial("tcp", l.Addr().String())
			require.NoError(t, err)
			defer c.Close()
			srv, err := l.Accept()
			require.NoError(t, err)
			defer srv.Close()
			local, remote := srv.LocalAddr().(*net.TCPAddr), srv.RemoteAddr().(*net.TCPAddr)
			ino, uid, err := diagSocket(remote, local)
			if errors.Is(err, unix.EPROTONOSUPPORT) {
				// QEMU's user mode has no NETLINK_SOCK_DIAG: the
				// /proc/net/tcp fallback alone.
				got, err := LoopbackPeerUID(local, remote)
				require.NoError(t, err)
				assert.Equal(t, os.Geteuid(), got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, os.Geteuid(), uid)
			table := "/proc/net/tcp"
			if local.IP.To4() == nil {
				table += "6"
			}
			pinode, puid := socketInode(table, remote.Port, local.Port)
			assert.Equal(t, puid, uid)
			assert.Equal(t, pinode, strconv.FormatUint(uint64(ino), 10), "sock_diag's and %s's inode", table)
			got, err := LoopbackPeerUID(local, remote)
			require.NoError(t, err)
			assert.Equal(t, os.Geteuid(), got)
			_, _, err = diagSocket(&net.TCPAddr{IP: remote.IP, Port: 1}, local)
			assert.Error(t, err, "no such socket")
			_, err = LoopbackPeerUID(local, &net.TCPAddr{IP: remote.IP, Port: 1})
			assert.Error(t, err)
		})
	}
}
