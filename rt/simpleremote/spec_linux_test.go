package simpleremote_test

import (
	"context"
	"net"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt/simpleremote"
)

// TestOpenLLIChild: lli-child-target's `IN OUT` opens like
// filedescs=IN,OUT (the descriptors adopted: close-on-exec,
// non-blocking), and a descriptor that is not open is the filedescs=
// usage error.
func TestOpenLLIChild(t *testing.T) {
	var p [2]int
	require.NoError(t, syscall.Pipe(p[:]))
	a, err := simpleremote.ParseArgs([]string{strconv.Itoa(p[0]), strconv.Itoa(p[1])})
	require.NoError(t, err)
	require.True(t, a.Spec.LLIChild)
	conn, err := a.Spec.Open(context.Background())
	require.NoError(t, err)
	defer conn.Close()
	for _, fd := range p {
		cloexec, nonblock := fdFlags(t, fd)
		assert.True(t, cloexec, "fd %d close-on-exec", fd)
		assert.True(t, nonblock, "fd %d non-blocking", fd)
	}
	fc := conn.(*simpleremote.FileConn)
	_, err = fc.Write([]byte("ping"))
	require.NoError(t, err)
	buf := make([]byte, 4)
	_, err = fc.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "ping", string(buf))
	require.NoError(t, conn.Close())

	a, err = simpleremote.ParseArgs([]string{"999", "998"})
	require.NoError(t, err)
	_, err = a.Spec.Open(context.Background())
	var ue *simpleremote.UsageError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, "999 is not a valid file descriptor", ue.Msg)
}

// TestOpenListening: for listen= and unix= the callback gets the address
// the socket listens on before Accept, so a listen=HOST:0 port can be
// told to the controller; the connection made to it is the one opened.
// filedescs= listens on nothing and never calls it.
func TestOpenListening(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s")
	for _, tc := range []struct{ arg, network string }{
		{"listen=127.0.0.1:0", "tcp"},
		{"unix=" + sock, "unix"},
	} {
		t.Run(tc.network, func(t *testing.T) {
			a, err := simpleremote.ParseArgs([]string{tc.arg})
			require.NoError(t, err)
			var got net.Addr
			dialed := make(chan net.Conn, 1)
			conn, err := a.Spec.OpenListening(context.Background(), func(addr net.Addr) {
				got = addr
				go func() { // Accept follows the callback
					c, err := net.Dial(addr.Network(), addr.String())
					assert.NoError(t, err)
					dialed <- c
				}()
			})
			require.NoError(t, err)
			defer conn.Close()
			peer := <-dialed
			require.NotNil(t, peer)
			defer peer.Close()
			require.NotNil(t, got)
			assert.Equal(t, tc.network, got.Network())
			if tc.network == "tcp" {
				assert.NotZero(t, got.(*net.TCPAddr).Port)
			} else {
				assert.Equal(t, sock, got.String())
			}
			_, err = peer.Write([]byte("ping"))
			require.NoError(t, err)
			buf := make([]byte, 4)
			_, err = conn.Read(buf)
			require.NoError(t, err)
			assert.Equal(t, "ping", string(buf))
		})
	}

	var p [2]int
	require.NoError(t, syscall.Pipe(p[:]))
	a, err := simpleremote.ParseArgs([]string{"filedescs=" + strconv.Itoa(p[0]) + "," + strconv.Itoa(p[1])})
	require.NoError(t, err)
	conn, err := a.Spec.OpenListening(context.Background(), func(net.Addr) { t.Error("filedescs= called onListen") })
	require.NoError(t, err)
	require.NoError(t, conn.Close())
}
