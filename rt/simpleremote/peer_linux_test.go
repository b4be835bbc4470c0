package simpleremote

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/crossexec"
)

// TestPeerPID identifies the controller process behind each kind of
// connection: the parent for inherited descriptors, the peer's
// credentials on a Unix socket, the owner of the other end of a loopback
// TCP connection (here a bash process connected through /dev/tcp).
func TestPeerPID(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	fc := NewFileConn(r, w)
	assert.Equal(t, os.Getppid(), PeerPID(fc), "inherited descriptors")
	fc.Close()

	sock := filepath.Join(t.TempDir(), "s")
	ul, err := ListenUnix(sock)
	require.NoError(t, err)
	dialled := make(chan net.Conn, 1)
	go func() {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Error(err)
		}
		dialled <- c
	}()
	uc, err := ul.Accept(context.Background())
	require.NoError(t, err)
	assert.Equal(t, os.Getpid(), PeerPID(uc), "Unix socket: this process dialled")
	uc.Close()
	if c := <-dialled; c != nil {
		c.Close()
	}

	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash for the TCP peer")
	}
	tl, err := ListenTCP("127.0.0.1", "0")
	require.NoError(t, err)
	port := tl.Addr().(*net.TCPAddr).Port
	peer := exec.Command(bash, "-c", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d; read -t 10 <&3", port))
	require.NoError(t, peer.Start())
	defer func() { _ = peer.Process.Kill(); _ = peer.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tc, err := tl.Accept(ctx)
	require.NoError(t, err)
	defer tc.Close()
	assert.Equal(t, peer.Process.Pid, PeerPID(tc), "loopback TCP")
}

// peerCloseEnv makes the test binary the controller of
// TestWatchPeerClose: it connects to the port the variable names, reads
// on the socket in a thread of its own and, once the executor's byte has
// arrived, closes the descriptor from another thread without shutting it
// down, as LLVM's controllers do at exit; it exits 0 when the blocked
// read then sees end-of-file.
const peerCloseEnv = "ORCRT_TEST_PEER_CLOSE_PORT"

func peerCloseController(port string) {
	p, _ := strconv.Atoi(port)
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		os.Exit(10)
	}
	if err := syscall.Connect(fd, &syscall.SockaddrInet4{Port: p, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		os.Exit(11)
	}
	reads := make(chan int, 2)
	go func() {
		runtime.LockOSThread()
		for {
			var b [1]byte
			n, _ := syscall.Read(fd, b[:])
			reads <- n
			if n <= 0 {
				return
			}
		}
	}()
	if <-reads != 1 { // the executor's byte: the connection is live
		os.Exit(12)
	}
	time.Sleep(50 * time.Millisecond) // the reader blocks again
	_ = syscall.Close(fd)
	select {
	case n := <-reads:
		if n == 0 {
			os.Exit(0)
		}
		os.Exit(13)
	case <-time.After(20 * time.Second):
		os.Exit(14)
	}
}

// TestWatchPeerClose: a controller that closes its socket while its own
// reader thread blocks on it (so no FIN is sent) is noticed; the
// connection is shut down, so both the executor's reads and the
// controller's blocked read see end-of-file. While the controller holds
// its end, nothing happens.
func TestWatchPeerClose(t *testing.T) {
	if port := os.Getenv(peerCloseEnv); port != "" {
		peerCloseController(port)
		return
	}
	var ctl *exec.Cmd
	c, gone := watchedConn(t, func(port int) {
		ctl = crossexec.Command(os.Args[0], "-test.run=^TestWatchPeerClose$")
		ctl.Env = append(os.Environ(), fmt.Sprintf("%s=%d", peerCloseEnv, port))
		require.NoError(t, ctl.Start())
	})
	_, err := c.Write([]byte{1})
	require.NoError(t, err)
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the controller's close was not noticed")
	}
	require.NoError(t, c.(interface{ SetReadDeadline(time.Time) error }).SetReadDeadline(time.Now().Add(10*time.Second)))
	_, err = c.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF, "the executor's read after the shutdown")
	require.NoError(t, ctl.Wait(), "the controller's blocked read must see end-of-file (exit 0)")
}

// TestWatchPeerCloseInProcess: a controller in this very process is not
// taken for one that let go of its socket.
func TestWatchPeerCloseInProcess(t *testing.T) {
	var ctl net.Conn
	c, _ := watchedConn(t, func(port int) {
		var err error
		ctl, err = net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		require.NoError(t, err)
		t.Cleanup(func() { _ = ctl.Close() })
	})
	_, err := ctl.Write([]byte{1})
	require.NoError(t, err)
	_, err = io.ReadFull(c, make([]byte, 1))
	require.NoError(t, err, "the connection still works")
}

// watchedConn accepts the connection that connect makes to a fresh
// loopback port, watches it with WatchPeerClose (every 10 ms), and checks
// that the watch does not fire in the first 100 ms, while the controller
// holds its end. gone is closed when it fires.
func watchedConn(t *testing.T, connect func(port int)) (Conn, chan struct{}) {
	t.Helper()
	l, err := ListenTCP("127.0.0.1", "0")
	require.NoError(t, err)
	connect(l.Addr().(*net.TCPAddr).Port)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := l.Accept(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	gone := make(chan struct{})
	t.Cleanup(WatchPeerClose(c, 10*time.Millisecond, func() { close(gone) }))
	time.Sleep(100 * time.Millisecond) // ten looks
	select {
	case <-gone:
		t.Fatal("the watch fired while the controller held its end")
	default:
	}
	return c, gone
}

// TestLookSchedule: the first look comes at firstLook of quiet, the
// next ones at doubling quiet times up to the interval and then every
// interval; data moving starts the schedule again; the watch wakes at
// least every tenth of the interval during the first ten intervals of
// quiet, and every interval after that; and it looks whenever an
// interval has passed since the last look, whatever the quiet time.
func TestLookSchedule(t *testing.T) {
	ms := time.Millisecond
	s := newLookSchedule(100 * ms)
	var looks []time.Duration
	for q := time.Duration(0); q <= 400*ms; q += ms {
		var last time.Duration
		if len(looks) > 0 {
			last = looks[len(looks)-1]
		}
		if look, nap := s.step(q, q-last); look {
			looks = append(looks, q)
		} else {
			assert.LessOrEqual(t, nap, 10*ms, "a wake-up at least every tenth of the interval (quiet %v)", q)
		}
	}
	assert.Equal(t, []time.Duration{2 * ms, 4 * ms, 8 * ms, 16 * ms, 32 * ms, 64 * ms, 100 * ms, 200 * ms, 300 * ms, 400 * ms}, looks)

	look, nap := s.step(3*ms, 3*ms) // data moved
	assert.True(t, look, "quiet again for longer than firstLook")
	assert.Equal(t, 1*ms, nap, "the next look at 4 ms of quiet")

	look, nap = s.step(5*time.Second, 5*time.Second) // long idle: looked, next at 5.1 s
	assert.True(t, look)
	assert.Equal(t, 100*ms, nap, "an idle connection wakes once per interval")

	look, _ = s.step(0, 0) // data moved, just now
	assert.False(t, look)
	look, _ = s.step(0, 100*ms) // a quiet time stuck at 0 (QEMU): a look every interval
	assert.True(t, look)

	z := newLookSchedule(0) // no interval: at least a millisecond, never a busy loop
	look, nap = z.step(5*time.Second, 5*time.Second)
	assert.True(t, look)
	assert.Equal(t, ms, nap)
}
