package wirefuzz

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/fuzz/internal/memconn"
	"github.com/orcgo/orcrt/rt/simpleremote"
)

// TestChunkedSchedule: small reads only near message edges, every byte in
// order, and plain chunks when the chunk is not below the window.
func TestChunkedSchedule(t *testing.T) {
	hs := []simpleremote.Header{{Size: 32 + 1000}, {Size: 32}}
	data := make([]byte, 1032+32+500) // two messages, then a partial one
	for i := range data {
		data[i] = byte(i)
	}
	const window = 65
	read := func(c *chunked) (got []byte, sizes map[int]int) {
		sizes = map[int]int{} // offset -> read size
		buf := make([]byte, 4096)
		for {
			n, err := c.Read(buf)
			if err == io.EOF {
				return got, sizes
			}
			require.NoError(t, err)
			require.Positive(t, n)
			sizes[len(got)] = n
			got = append(got, buf[:n]...)
		}
	}
	got, sizes := read(newChunked(data, memconn.Mode{Chunk: 1}, window, hs))
	assert.Equal(t, data, got)
	for _, edge := range []int{0, 1032, 1064} {
		for off := edge; off < edge+window; off++ {
			assert.Equal(t, 1, sizes[off], "one-byte read at %d, after the edge at %d", off, edge)
		}
	}
	for off := 1032 - window; off < 1032; off++ {
		assert.Equal(t, 1, sizes[off], "one-byte read at %d, before the edge at 1032", off)
	}
	assert.Equal(t, 1032-2*window, sizes[window], "one read across the middle of the first payload")
	assert.Less(t, len(sizes), 6*window, "reads")

	got, sizes = read(newChunked(data, memconn.Mode{Chunk: 100}, window, hs))
	assert.Equal(t, data, got)
	for off, n := range sizes {
		assert.Equal(t, min(100, len(data)-off), n, "read at %d", off)
	}
}
