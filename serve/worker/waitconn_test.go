//go:build cgo && linux

package worker

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/nettest"
	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/serve/internal/peer"
	"github.com/orcgo/orcrt/serve/internal/wire"
)

// testListener is a listening socket as serve keeps it (non-blocking,
// out of Go's poller, close-on-exec): its descriptor and address.
func testListener(t *testing.T, network string) (fd int, addr string) {
	t.Helper()
	addr = "127.0.0.1:0"
	if network == "unix" {
		addr = filepath.Join(t.TempDir(), "s.sock")
	}
	l, err := net.Listen(network, addr)
	require.NoError(t, err)
	defer l.Close()
	rc, err := l.(syscall.Conn).SyscallConn()
	require.NoError(t, err)
	require.NoError(t, rc.Control(func(u uintptr) { fd, err = unix.FcntlInt(u, unix.F_DUPFD_CLOEXEC, 0) }))
	require.NoError(t, err)
	require.NoError(t, unix.SetNonblock(fd, true))
	if ul, ok := l.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false)
	}
	t.Cleanup(func() { _ = unix.Close(fd) })
	return fd, l.Addr().String()
}

// testWaiter is a connWait as a worker has it, with its own copy of lfd and
// the server's end of its control socket.
type testWaiter struct {
	w    *connWait
	srv  *net.UnixConn
	done chan struct{}
	acc  *accepted
	err  error
}

func newTestWaiter(t *testing.T, lfd int, pol peer.Policy) *testWaiter {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	f := os.NewFile(uintptr(fds[0]), "ctl")
	c, err := net.FileConn(f)
	f.Close()
	require.NoError(t, err)
	dup, err := unix.FcntlInt(uintptr(lfd), unix.F_DUPFD_CLOEXEC, 0)
	require.NoError(t, err)
	w, err := newConnWait(wire.Ctl(fds[1]), dup, 1, pol)
	require.NoError(t, err)
	tw := &testWaiter{w: w, srv: c.(*net.UnixConn), done: make(chan struct{})}
	t.Cleanup(func() {
		tw.srv.Close()
		<-tw.done
		w.close()
		_ = unix.Close(fds[1])
		if tw.acc != nil {
			_ = tw.acc.conn.Close()
		}
	})
	return tw
}

// start runs the wait; arm sends "accept" first.
func (tw *testWaiter) start(t *testing.T, arm bool) {
	t.Helper()
	if arm {
		_, err := tw.srv.Write([]byte(wire.MsgAccept))
		require.NoError(t, err)
	}
	go func() {
		defer close(tw.done)
		tw.acc, tw.err = tw.w.wait()
	}()
}

// release lets the waiter go (the server's drain) and waits for it.
func (tw *testWaiter) release(t *testing.T) {
	t.Helper()
	require.NoError(t, tw.srv.CloseWrite())
	select {
	case <-tw.done:
	case <-time.After(10 * time.Second):
		t.Fatal("a released waiter did not return")
	}
}

func (tw *testWaiter) returned() bool {
	select {
	case <-tw.done:
		return true
	default:
		return false
	}
}

// waitReturned waits for n of tws to return.
func waitReturned(t *testing.T, tws []*testWaiter, n, round int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := 0
		for _, tw := range tws {
			if tw.returned() {
				got++
			}
		}
		if got == n {
			return
		}
		require.True(t, time.Now().Before(deadline), "round %d: %d of %d connections taken", round, got, n)
		time.Sleep(time.Millisecond)
	}
}

// TestConnWaitRace: armed workers racing on one listening socket (epoll
// with EPOLLEXCLUSIVE, accept4 on the shared non-blocking socket): each
// connection is taken by exactly one, each taker has exactly one, the
// others go on waiting and end when let go.
func TestConnWaitRace(t *testing.T) {
	lfd, path := testListener(t, "unix")
	self := peer.Policy{Self: os.Geteuid()}
	for round := range 60 {
		waiters, conns := 2, 1
		if round%3 == 2 {
			waiters, conns = 4, 3
		}
		tws := make([]*testWaiter, waiters)
		for i := range tws {
			tws[i] = newTestWaiter(t, lfd, self)
			tws[i].start(t, true)
		}
		if round%2 == 0 {
			time.Sleep(2 * time.Millisecond) // all in epoll_wait
		}
		clients := make([]net.Conn, conns)
		var wg sync.WaitGroup
		for i := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := net.Dial("unix", path)
				if assert.NoError(t, err) {
					clients[i] = c
				}
			}()
		}
		wg.Wait()
		// Exactly conns waiters return, each with a connection.
		waitReturned(t, tws, conns, round)
		time.Sleep(5 * time.Millisecond) // a second taker would show now
		var takers []*testWaiter
		for _, tw := range tws {
			if tw.returned() {
				require.NoError(t, tw.err)
				require.NotNil(t, tw.acc, "round %d: a waiter returned without a connection", round)
				assert.False(t, tw.acc.handed)
				assert.Equal(t, os.Getpid(), tw.acc.peer.PID)
				tw.w.close() // as RunWorker does
				takers = append(takers, tw)
			}
		}
		require.Len(t, takers, conns, "round %d", round)
		// One to one: a byte written on each taken connection reaches
		// exactly one client.
		for i, tw := range takers {
			_, err := tw.acc.conn.Write([]byte{byte('a' + i)})
			require.NoError(t, err)
		}
		seen := map[byte]bool{}
		for _, c := range clients {
			_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
			var b [2]byte
			n, err := c.Read(b[:])
			require.NoError(t, err)
			require.Equal(t, 1, n)
			assert.False(t, seen[b[0]], "round %d: two clients on one connection", round)
			seen[b[0]] = true
			c.Close()
		}
		for _, tw := range tws {
			if !tw.returned() {
				tw.release(t)
				require.NoError(t, tw.err)
				assert.Nil(t, tw.acc, "a released waiter has no connection")
			}
		}
	}
}

// TestConnWaitRefuses: a peer the policy refuses is reported to the server
// once per connection (before its close) and closed, and the worker goes
// on waiting (here for ever: nobody is allowed) until let go.
func TestConnWaitRefuses(t *testing.T) {
	lfd, path := testListener(t, "unix")
	tw := newTestWaiter(t, lfd, peer.Policy{Self: os.Geteuid() + 1})
	tw.start(t, true)
	for range 2 {
		c, err := net.Dial("unix", path)
		require.NoError(t, err)
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := c.Read(make([]byte, 1))
		assert.Zero(t, n)
		assert.ErrorContains(t, err, "EOF")
		c.Close()
		_ = tw.srv.SetReadDeadline(time.Now().Add(10 * time.Second))
		buf := make([]byte, 512)
		n, err = tw.srv.Read(buf)
		require.NoError(t, err)
		f := strings.Split(string(buf[:n]), "\x00")
		require.Len(t, f, 7, "%q", buf[:n])
		assert.Equal(t, []string{wire.MsgRefused, "uid", "unix", "@", strconv.Itoa(os.Geteuid()), strconv.Itoa(os.Getpid())}, f[:6])
		assert.Contains(t, f[6], fmt.Sprintf("unix peer uid %d", os.Geteuid()))
	}
	// Nothing more than one message per refusal.
	_ = tw.srv.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	_, err := tw.srv.Read(make([]byte, 512))
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
	assert.False(t, tw.returned())
	tw.release(t)
	require.NoError(t, tw.err)
	assert.Nil(t, tw.acc)
}

// TestConnWaitUnarmed: a worker the server has not armed does not accept;
// it takes a connection the server hands over instead.
func TestConnWaitUnarmed(t *testing.T) {
	lfd, path := testListener(t, "unix")
	tw := newTestWaiter(t, lfd, peer.Policy{Self: os.Geteuid()})
	tw.start(t, false)
	c, err := net.Dial("unix", path) // queued: nobody accepts
	require.NoError(t, err)
	defer c.Close()
	time.Sleep(20 * time.Millisecond)
	assert.False(t, tw.returned(), "an unarmed worker accepted")
	a, b := nettest.LoopbackPair(t, "tcp", "127.0.0.1:0")
	rc, err := b.(*net.TCPConn).SyscallConn()
	require.NoError(t, err)
	var werr error
	require.NoError(t, rc.Control(func(fd uintptr) {
		_, _, werr = tw.srv.WriteMsgUnix([]byte(wire.MsgSession+"\x0042"), unix.UnixRights(int(fd)), nil)
	}))
	require.NoError(t, werr)
	select {
	case <-tw.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the hand-over was not taken")
	}
	require.NoError(t, tw.err)
	require.NotNil(t, tw.acc)
	assert.True(t, tw.acc.handed)
	assert.Equal(t, uint64(42), tw.acc.id)
	_, err = tw.acc.conn.Write([]byte("x"))
	require.NoError(t, err)
	_ = a.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := a.Read(make([]byte, 1))
	assert.Equal(t, 1, n)
	assert.NoError(t, err)
}

// TestConnWaitShutdown: a listening socket shut down (serve's drain) is
// dropped, not spun on; the worker still ends when let go.
func TestConnWaitShutdown(t *testing.T) {
	for _, network := range []string{"unix", "tcp"} {
		t.Run(network, func(t *testing.T) {
			lfd, _ := testListener(t, network)
			tw := newTestWaiter(t, lfd, peer.Policy{Self: os.Geteuid()})
			tw.start(t, true)
			time.Sleep(5 * time.Millisecond)
			require.NoError(t, unix.Shutdown(lfd, unix.SHUT_RDWR))
			time.Sleep(20 * time.Millisecond)
			assert.False(t, tw.returned())
			tw.release(t)
			require.NoError(t, tw.err)
			assert.Nil(t, tw.acc)
			assert.Equal(t, []int{-1}, tw.w.ls, "the shut-down socket dropped")
		})
	}
}
