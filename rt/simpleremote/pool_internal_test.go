//go:build linux

package simpleremote

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPoolClasses(t *testing.T) {
	sizes := []int{1, 63, 64, 65, 79, 80, 81, 127, 128, 129, 1000, 4096, 4097, 65536, 1 << 20, 1<<20 + 24, poolMaxClass - 1, poolMaxClass}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		sizes = append(sizes, 1+r.IntN(poolMaxClass))
	}
	for _, n := range sizes {
		c := poolCeilClass(n)
		require.True(t, c >= 0 && c < poolClasses, "n=%d class %d", n, c)
		sz := poolClassSize(c)
		assert.GreaterOrEqual(t, sz, n, "class of %d too small", n)
		if n > 64 {
			assert.LessOrEqual(t, float64(sz), 1.25*float64(n)+1, "class of %d wastes more than 25%%", n)
		}
		if c > 0 {
			assert.Less(t, poolClassSize(c-1), n, "class of %d is not the smallest", n)
		}
		// A buffer rounded up for n goes back to n's class.
		assert.Equal(t, c, poolFloorClass(poolRound(n)), "n=%d", n)
		// Any buffer in the floor class of a capacity holds that class.
		if f := poolFloorClass(n); f >= 0 {
			assert.LessOrEqual(t, poolClassSize(f), n)
			if f+1 < poolClasses {
				assert.Greater(t, poolClassSize(f+1), n)
			}
		} else {
			assert.Less(t, n, 64)
		}
	}
	assert.Equal(t, poolMaxClass, poolClassSize(poolClasses-1))
	assert.Equal(t, poolMaxClass+1, poolRound(poolMaxClass+1), "beyond the pooled sizes: no rounding")
}

func TestPoolGetPut(t *testing.T) {
	var p payloadPool
	assert.Nil(t, p.get(100), "empty pool")
	b := make([]byte, 10, poolRound(100))
	p.put(b)
	got := p.get(100)
	require.NotNil(t, got)
	assert.Equal(t, 0, len(got))
	assert.Equal(t, &b[:1][0], &got[:1][0], "the same buffer")
	assert.Nil(t, p.get(100), "taken")

	// Too small or too large buffers are not kept.
	p.put(make([]byte, 0, 10))
	p.put(make([]byte, 0, poolMaxClass+1))
	assert.Zero(t, p.held)

	// Per class and byte budget limits.
	for range poolPerClass + 3 {
		p.put(make([]byte, 0, 4096))
	}
	assert.Equal(t, poolPerClass*4096, p.held)
	for range poolBudget / poolMaxClass * 2 {
		p.put(make([]byte, 0, poolMaxClass))
	}
	assert.LessOrEqual(t, p.held, poolBudget)
	// A request never gets a buffer smaller than asked.
	for n := 1; n < 5000; n += 97 {
		if b := p.get(n); b != nil {
			assert.GreaterOrEqual(t, cap(b), n)
			p.put(b)
		}
	}
	assert.Nil(t, p.get(0))
	assert.Nil(t, p.get(poolMaxClass+1))
}

// poolChunkReader returns at most k bytes per Read.
type poolChunkReader struct {
	b []byte
	k int
}

func (c *poolChunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.k)], c.b)
	c.b = c.b[n:]
	return n, nil
}

// TestReaderPooledPayloads: payloads read into recycled buffers (larger
// than the payload) are exact and never swallow the next message's bytes,
// whatever the read chunking.
func TestReaderPooledPayloads(t *testing.T) {
	sizes := []int{1, 8, 100, 5000, 40 << 10, 70 << 10, 300 << 10, 1<<20 + 24}
	var stream []byte
	var want [][]byte
	for i, n := range sizes {
		p := make([]byte, n)
		for j := range p {
			p[j] = byte(i*7 + j*13)
		}
		want = append(want, p)
		stream = AppendFrame(stream, OpCallWrapper, uint64(i), 0x10, p)
	}
	for _, k := range []int{1 << 30, 4096, 1000, 65536} {
		var pool payloadPool
		// Stock the pool with buffers bigger than each payload's class
		// would need: the reader must bound its reads by the payload.
		for _, n := range sizes {
			pool.put(make([]byte, 0, poolRound(n)))
		}
		rd := NewReader(&poolChunkReader{b: stream, k: k}, 0, 0)
		rd.pool = &pool
		for i := range sizes {
			h, p, err := rd.ReadMsg()
			require.NoError(t, err, "chunk %d message %d", k, i)
			assert.Equal(t, uint64(i), h.SeqNo)
			if !bytes.Equal(p, want[i]) {
				t.Fatalf("chunk %d: payload %d (%d bytes) differs", k, i, sizes[i])
			}
			pool.put(p) // recycle at once, as a borrowing call would
		}
		_, _, err := rd.ReadMsg()
		assert.ErrorIs(t, err, io.EOF)
	}
}

// TestReaderHostileSizeWithPool: a header claiming more than was sent
// still costs only what arrived, pool or not, and recycled buffers do not
// change the verdict.
func TestReaderHostileSizeWithPool(t *testing.T) {
	var pool payloadPool
	pool.put(make([]byte, 0, poolMaxClass))
	frame := AppendHeader(nil, Header{Size: HeaderSize + 900<<20, Op: OpCallWrapper})
	frame = append(frame, make([]byte, 1000)...)
	rd := NewReader(bytes.NewReader(frame), 0, 0)
	rd.pool = &pool
	_, _, err := rd.ReadMsg()
	assert.ErrorIs(t, err, ErrUnexpectedEOF)
	allocs := testing.AllocsPerRun(10, func() {
		rd := NewReader(bytes.NewReader(frame), 0, 4096)
		rd.pool = &pool
		_, _, _ = rd.ReadMsg()
	})
	assert.LessOrEqual(t, allocs, 6.0)
}

func TestGrowPipe(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("F_SETPIPE_SZ is Linux's")
	}
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	const fGetPipeSz = 1032
	size := func() int {
		n, _, e := syscall.Syscall(syscall.SYS_FCNTL, r.Fd(), fGetPipeSz, 0)
		require.Zero(t, e)
		return int(n)
	}
	before := size()
	growPipe(int(r.Fd()))
	if got := size(); got < inputPipeSize {
		t.Skipf("pipe size %d -> %d: the pipe-buffer quota is exhausted here", before, got)
	}
	// Not a pipe: nothing happens, nothing fails.
	f, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer f.Close()
	growPipe(int(f.Fd()))
}
