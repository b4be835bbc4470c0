package wirefuzz

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/fuzz/internal/memconn"
	"github.com/orcgo/orcrt/rt/simpleremote"
)

// TestChunkedSchedule: reads of the chunk size near the offsets where the
// Reader changes path, skips in whole chunks between them, every byte in
// order, and plain chunks when the chunk is not below the buffer.
func TestChunkedSchedule(t *testing.T) {
	hs := []simpleremote.Header{{Size: 32 + 1000}, {Size: 32}}
	data := make([]byte, 1032+32+500) // two messages, then a partial one
	for i := range data {
		data[i] = byte(i)
	}
	const bufSize = 65
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
	// Message starts, header ends, the first payload's small-tail switch
	// (bufSize/2 before its end), the end of input.
	marks := []int{0, 32, 1032 - bufSize/2, 1032, 1064, 1064 + 32, len(data)}
	for _, chunk := range []int{1, 7} {
		got, sizes := read(newChunked(data, memconn.Mode{Chunk: chunk}, bufSize, hs))
		assert.Equal(t, data, got, "chunk %d", chunk)
		for off, n := range sizes {
			assert.Zero(t, off%chunk, "chunk %d: a read at %d, out of step", chunk, off)
			if off+n < len(data) {
				assert.Zero(t, n%chunk, "chunk %d: a read of %d at %d, out of step", chunk, n, off)
			}
		}
		for _, mark := range marks {
			from := max(0, (mark-3*chunk+chunk-1)/chunk*chunk) // the first read in step
			for off := from; off < min(mark+3*chunk, len(data)); off += chunk {
				assert.Equal(t, min(chunk, len(data)-off), sizes[off], "chunk %d: a read at %d, near %d", chunk, off, mark)
			}
		}
		assert.Less(t, len(sizes), 6*len(marks)+len(marks), "chunk %d: reads", chunk)
	}

	got, sizes := read(newChunked(data, memconn.Mode{Chunk: 100}, bufSize, hs))
	assert.Equal(t, data, got)
	for off, n := range sizes {
		assert.Equal(t, min(100, len(data)-off), n, "read at %d", off)
	}
}
