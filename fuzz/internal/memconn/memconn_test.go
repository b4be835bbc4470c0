package memconn

import (
	"errors"
	"io"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseMode(t *testing.T) {
	for _, tc := range []struct {
		b    byte
		want Mode
	}{
		{0x00, Mode{Chunk: 1}},
		{0x05, Mode{Chunk: 4096}},
		{0x47, Mode{Chunk: 1 << 20, Detach: true}},
		{0x82, Mode{Chunk: 32, Hold: true}},
		{0x0b, Mode{Chunk: 33, Concurrent: true}},
	} {
		assert.Equal(t, tc.want, ParseMode(tc.b), "byte %#x", tc.b)
	}
}

func TestConnChunksAndEOF(t *testing.T) {
	c := New([]byte("abcdefg"), Mode{Chunk: 3})
	var got []byte
	buf := make([]byte, 10)
	for {
		n, err := c.Read(buf)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		assert.LessOrEqual(t, n, 3)
		got = append(got, buf[:n]...)
	}
	assert.Equal(t, "abcdefg", string(got))
	_, err := c.Write([]byte("out"))
	require.NoError(t, err)
	assert.Equal(t, "out", string(c.Output()))
	require.NoError(t, c.Close())
	require.NoError(t, c.Close())
	_, err = c.Write([]byte("x"))
	assert.ErrorIs(t, err, net.ErrClosed)
	_, err = c.Read(buf)
	assert.ErrorIs(t, err, net.ErrClosed)
}

func TestConnHoldBlocksUntilClose(t *testing.T) {
	c := New([]byte("a"), Mode{Chunk: 1, Hold: true})
	buf := make([]byte, 4)
	n, err := c.Read(buf)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	done := make(chan error, 1)
	go func() { _, err := c.Read(buf); done <- err }()
	<-c.Drained()
	select {
	case err := <-done:
		t.Fatalf("Read returned %v before Close", err)
	default:
	}
	require.NoError(t, c.Close())
	assert.ErrorIs(t, <-done, net.ErrClosed)
}
