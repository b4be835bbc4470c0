package simpleremote

import (
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spinPipe returns a FileConn reading a fresh pipe, and the pipe's write
// end.
func spinPipe(t *testing.T) (*FileConn, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	c := NewFileConn(r, r)
	t.Cleanup(func() { _ = c.Close() })
	if runtime.NumCPU() < 2 {
		t.Skip("readSpinner never polls on one CPU")
	}
	require.NotNil(t, c.spin.rc, "a pipe from os.Pipe is non-blocking: the spinner must be on")
	c.SetReadSpin(ExecutorReadSpin)
	return c, w
}

// TestReadSpinAdapts: a read polls only while the last wait ended within
// the budget, and a slow answer turns polling off until a fast one.
func TestReadSpinAdapts(t *testing.T) {
	c, w := spinPipe(t)
	c.SetReadSpin(20 * time.Millisecond)
	buf := make([]byte, 16)
	read := func(delay time.Duration, want string) { // delay 0: written before the read
		t.Helper()
		if delay == 0 {
			_, err := w.Write([]byte(want))
			require.NoError(t, err)
		} else {
			go func() {
				time.Sleep(delay)
				_, _ = w.Write([]byte(want))
			}()
		}
		n, err := c.Read(buf)
		require.NoError(t, err)
		assert.Equal(t, want, string(buf[:n]))
	}
	read(0, "fast")
	assert.True(t, c.spin.warm, "a wait within the budget keeps polling on")
	read(60*time.Millisecond, "slow")
	assert.False(t, c.spin.warm, "a wait past the budget turns polling off")
	read(60*time.Millisecond, "slow again")
	assert.False(t, c.spin.warm)
	read(0, "fast again")
	assert.True(t, c.spin.warm, "a fast answer turns polling back on")

	c.SetReadSpin(0)
	_, _, ok := c.spin.read(buf)
	assert.False(t, ok, "a zero ReadSpin never polls")
}

// TestReadSpinOption: Options.ReadSpin reaches the Conn; a Conn polls
// only when asked to.
func TestReadSpinOption(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer w.Close()
	c := NewFileConn(r, r)
	defer c.Close()
	assert.Zero(t, c.spin.budget.Load(), "polling is off by default")
	New(c, &Options{ReadSpin: ExecutorReadSpin})
	assert.Equal(t, int64(ExecutorReadSpin), c.spin.budget.Load())
}

// TestReadSpinEnds: end of input and a closed input read as they do
// without polling.
func TestReadSpinEnds(t *testing.T) {
	c, w := spinPipe(t)
	_, err := w.Write([]byte("last"))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	buf := make([]byte, 16)
	n, err := c.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "last", string(buf[:n]))
	_, err = c.Read(buf)
	assert.Equal(t, io.EOF, err)

	c2, _ := spinPipe(t)
	require.NoError(t, c2.Close())
	_, err = c2.Read(buf)
	assert.ErrorIs(t, err, os.ErrClosed)
}

// TestReadSpinClosedWhileParked: Close wakes a read that polled and then
// parked.
func TestReadSpinClosedWhileParked(t *testing.T) {
	c, _ := spinPipe(t)
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 8))
		done <- err
	}()
	time.Sleep(10 * time.Millisecond)
	require.NoError(t, c.in.Close())
	select {
	case err := <-done:
		assert.ErrorIs(t, err, os.ErrClosed)
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not wake the read")
	}
}

// TestReadSpinConcurrent: concurrent reads (meaningless on a stream, but
// allowed on an *os.File) lose and duplicate nothing.
func TestReadSpinConcurrent(t *testing.T) {
	c, w := spinPipe(t)
	const total = 1 << 16
	var wg sync.WaitGroup
	counts := make([]int, 4)
	for i := range counts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 100)
			for {
				n, err := c.Read(buf)
				counts[i] += n
				if err != nil {
					return
				}
			}
		}()
	}
	chunk := make([]byte, 512)
	for sent := 0; sent < total; sent += len(chunk) {
		_, err := w.Write(chunk)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	wg.Wait()
	sum := 0
	for _, n := range counts {
		sum += n
	}
	assert.Equal(t, total, sum)
}

// TestReadSpinAllocs: a polled read allocates nothing.
func TestReadSpinAllocs(t *testing.T) {
	c, w := spinPipe(t)
	msg, buf := []byte("0123456789abcdef"), make([]byte, 16)
	allocs := testing.AllocsPerRun(1000, func() {
		_, _ = w.Write(msg)
		if n, _ := c.Read(buf); n != len(msg) {
			t.Fatalf("read %d bytes", n)
		}
	})
	assert.Zero(t, allocs)
}

// TestReadSpinSocketErrors: a reset reads as net's error would word it,
// and the peer's close as end of input.
func TestReadSpinSocketErrors(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("readSpinner never polls on one CPU")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	for _, reset := range []bool{false, true} {
		peer, err := net.Dial("tcp", l.Addr().String())
		require.NoError(t, err)
		nc, err := l.Accept()
		require.NoError(t, err)
		c, err := wrapSock(nc, "test")
		require.NoError(t, err)
		sc := c.(*sockConn)
		require.NotNil(t, sc.spin.rc)
		sc.SetReadSpin(ExecutorReadSpin)
		_, err = peer.Write([]byte("hi"))
		require.NoError(t, err)
		buf := make([]byte, 8)
		n, err := c.Read(buf)
		require.NoError(t, err)
		assert.Equal(t, "hi", string(buf[:n]))
		if reset {
			require.NoError(t, peer.(*net.TCPConn).SetLinger(0))
		}
		require.NoError(t, peer.Close())
		_, err = c.Read(buf)
		if reset {
			var oe *net.OpError
			assert.True(t, errors.As(err, &oe), "%T %v", err, err)
			assert.ErrorIs(t, err, syscall.ECONNRESET)
		} else {
			assert.Equal(t, io.EOF, err)
		}
		_ = c.Close()
	}
}

// TestReadSpinYieldsToWriters: a Writer parked on a full pipe is counted,
// and while one is, a read stops polling at once (only the poller can
// report the pipe writable).
func TestReadSpinYieldsToWriters(t *testing.T) {
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer pr.Close()
	defer pw.Close()
	wr := NewWriter(NewFileConn(pr, pw))
	done := make(chan error, 1)
	go func() { done <- wr.WriteMsg(OpCallWrapper, 1, 0, make([]byte, 4<<20)) }() // past any pipe's size
	require.Eventually(t, func() bool { return writesWaiting.Load() == 1 }, 5*time.Second, time.Millisecond, "the parked write is not counted")

	c, _ := spinPipe(t)
	c.spin.p, c.spin.start, c.spin.limit = make([]byte, 8), time.Now(), 3*time.Second
	rc, err := c.in.SyscallConn()
	require.NoError(t, err)
	require.NoError(t, rc.Control(func(fd uintptr) {
		assert.False(t, c.spin.pollOnce(fd), "an empty pipe: park")
	}))
	assert.Less(t, time.Since(c.spin.start), 2*time.Second, "polled on while a write waited")

	_, err = io.Copy(io.Discard, io.LimitReader(pr, 4<<20+HeaderSize))
	require.NoError(t, err)
	require.NoError(t, <-done)
	assert.Zero(t, writesWaiting.Load())
}
