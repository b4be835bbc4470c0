package simpleremote_test

import (
	"context"
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
