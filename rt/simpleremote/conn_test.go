//go:build linux

package simpleremote_test

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
)

func TestParseSpec(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want simpleremote.Spec
		err  string
	}{
		{in: "filedescs=3,6", want: simpleremote.Spec{Mode: simpleremote.ModeFileDescs, InFD: 3, OutFD: 6, InText: "3", OutText: "6"}},
		{in: "filedescs=5,5", want: simpleremote.Spec{Mode: simpleremote.ModeFileDescs, InFD: 5, OutFD: 5, InText: "5", OutText: "5"}},
		{in: "filedescs=-1,4", want: simpleremote.Spec{Mode: simpleremote.ModeFileDescs, InFD: -1, OutFD: 4, InText: "-1", OutText: "4"}},
		{in: "filedescs=007,8", want: simpleremote.Spec{Mode: simpleremote.ModeFileDescs, InFD: 7, OutFD: 8, InText: "007", OutText: "8"}},
		{in: "filedescs=abc,4", err: "abc is not a valid file descriptor"},
		{in: "filedescs=+3,4", err: "+3 is not a valid file descriptor"},
		{in: "filedescs=3,4,5", err: "4,5 is not a valid file descriptor"},
		{in: "filedescs=3", err: " is not a valid file descriptor"},
		{in: "filedescs", err: " is not a valid file descriptor"},
		{in: "filedescs= 3,4", err: " 3 is not a valid file descriptor"},
		{in: "filedescs=3,0x4", err: "0x4 is not a valid file descriptor"},
		{in: "filedescs=3,4294967299", err: "4294967299 is not a valid file descriptor"},
		{in: "listen=127.0.0.1:17211", want: simpleremote.Spec{Mode: simpleremote.ModeListen, Host: "127.0.0.1", Port: "17211", PortNum: 17211}},
		{in: "listen=:0", want: simpleremote.Spec{Mode: simpleremote.ModeListen, Port: "0"}},
		{in: "listen=0.0.0.0:80", want: simpleremote.Spec{Mode: simpleremote.ModeListen, Host: "0.0.0.0", Port: "80", PortNum: 80}},
		{in: "listen=foo", err: "port number '' is not a valid integer"},
		{in: "listen=:abc", err: "port number 'abc' is not a valid integer"},
		{in: "listen=:99999999999", err: "port number '99999999999' is not a valid integer"},
		{in: "listen=h:1:2", err: "port number '1:2' is not a valid integer"},
		{in: "listen=:70000", err: "port number '70000' is out of range"},
		{in: "listen=:-1", err: "port number '-1' is out of range"},
		{in: "unix=/tmp/x.sock", want: simpleremote.Spec{Mode: simpleremote.ModeUnix, Path: "/tmp/x.sock"}},
		{in: "unix=", err: "unix socket path is empty"},
		{in: "Listen=1", err: `invalid specifier type "Listen"`},
		{in: "", err: `invalid specifier type ""`},
		// LLVM main's spellings (docs/protocol.md §9.4).
		{in: "socket:adopt=3", want: simpleremote.Spec{Mode: simpleremote.ModeSocket, InFD: 3, OutFD: 3, InText: "3", OutText: "3"}},
		{in: "socket:adopt=-1", err: "-1 is not a valid file descriptor"},
		{in: "socket:adopt=", err: " is not a valid file descriptor"},
		{in: "pipe:adopt=3,4", want: simpleremote.Spec{Mode: simpleremote.ModeFileDescs, InFD: 3, OutFD: 4, InText: "3", OutText: "4"}},
		{in: "tcp:listen=[::1]:0", want: simpleremote.Spec{Mode: simpleremote.ModeListen, Host: "::1", Port: "0"}},
		{in: "tcp:listen=:17211", want: simpleremote.Spec{Mode: simpleremote.ModeListen, Port: "17211", PortNum: 17211}},
		{in: "tcp:connect=localhost:20000", want: simpleremote.Spec{Mode: simpleremote.ModeConnect, Host: "localhost", Port: "20000", PortNum: 20000}},
		{in: "tcp:connect=localhost:0", err: "port number '0' is not valid"},
		{in: "tcp:connect=localhost", err: "'localhost' is not HOST:PORT"},
		{in: "tcp:listen=:70000", err: "port number '70000' is not valid"},
		{in: "tcp:adopt=3", err: `invalid specifier type "tcp:adopt"`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := simpleremote.ParseSpec(tc.in)
			if tc.err != "" {
				var ue *simpleremote.UsageError
				require.ErrorAs(t, err, &ue)
				assert.Equal(t, tc.err, ue.Msg)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.in, got.String())
			got = copySpecFields(got)
			assert.Equal(t, tc.want, got)
		})
	}
}

// copySpecFields drops the unexported original text for comparison.
func copySpecFields(s simpleremote.Spec) simpleremote.Spec {
	return simpleremote.Spec{Mode: s.Mode, InFD: s.InFD, OutFD: s.OutFD, InText: s.InText, OutText: s.OutText,
		Host: s.Host, Port: s.Port, PortNum: s.PortNum, Path: s.Path}
}

func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		flags []string
		rest  []string
		mode  simpleremote.Mode
		err   string
	}{
		{name: "none", args: nil, err: "insufficient arguments"},
		{name: "filedescs", args: []string{"filedescs=3,6"}, mode: simpleremote.ModeFileDescs},
		{name: "trailing", args: []string{"filedescs=3,6", "a", "b"}, mode: simpleremote.ModeFileDescs, rest: []string{"a", "b"}},
		{name: "gdb flag", args: []string{"test-jitloadergdb", "listen=:1"}, flags: []string{"test-jitloadergdb"}, mode: simpleremote.ModeListen},
		{name: "any test flags", args: []string{"test-a", "test-jitloadergdb", "unix=/x"}, flags: []string{"test-a", "test-jitloadergdb"}, mode: simpleremote.ModeUnix},
		{name: "only a flag", args: []string{"test-jitloadergdb"}, err: `invalid specifier type ""`},
		{name: "bad after flag", args: []string{"test-foo", "filedescs=x"}, err: "x is not a valid file descriptor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := simpleremote.ParseArgs(tc.args)
			if tc.err != "" {
				var ue *simpleremote.UsageError
				require.ErrorAs(t, err, &ue)
				assert.Equal(t, tc.err, ue.Msg)
				assert.Equal(t, "error: "+tc.err+"\n\n"+stockUsage, formatUsageError(ue.Msg))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.mode, a.Spec.Mode)
			assert.Equal(t, tc.flags, a.TestFlags)
			assert.Equal(t, len(tc.rest), len(a.Rest))
			assert.Equal(t, slices.Contains(tc.flags, "test-jitloadergdb"), a.Has("test-jitloadergdb"))
		})
	}
}

func fdFlags(t *testing.T, fd int) (cloexec, nonblock bool) {
	t.Helper()
	fdf, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
	require.Zero(t, e)
	fl, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	require.Zero(t, e)
	return fdf&syscall.FD_CLOEXEC != 0, fl&syscall.O_NONBLOCK != 0
}

func rawFD(t *testing.T, c any) int {
	t.Helper()
	rc, err := c.(syscall.Conn).SyscallConn()
	require.NoError(t, err)
	fd := -1
	require.NoError(t, rc.Control(func(f uintptr) { fd = int(f) }))
	return fd
}

// TestAdoptFDs adopts inherited-style descriptors (blocking, no
// close-on-exec): they become close-on-exec and non-blocking, and a
// session runs over them.
func TestAdoptFDs(t *testing.T) {
	var toExec, fromExec [2]int
	require.NoError(t, syscall.Pipe2(toExec[:], 0))
	require.NoError(t, syscall.Pipe2(fromExec[:], 0))
	for _, fd := range []int{toExec[0], fromExec[1]} {
		ce, nb := fdFlags(t, fd)
		require.False(t, ce)
		require.False(t, nb)
	}
	spec, err := simpleremote.ParseSpec("filedescs=" + itoa(toExec[0]) + "," + itoa(fromExec[1]))
	require.NoError(t, err)
	conn, err := spec.Open(context.Background())
	require.NoError(t, err)
	for _, fd := range []int{toExec[0], fromExec[1]} {
		ce, nb := fdFlags(t, fd)
		assert.True(t, ce, "close-on-exec")
		assert.True(t, nb, "non-blocking")
	}
	ctlConn := &wiretest.PipeConn{R: os.NewFile(uintptr(fromExec[0]), "r"), W: os.NewFile(uintptr(toExec[1]), "w")}
	runSession(t, conn, ctlConn)
}

// TestAdoptSameFD: one socket used both ways (filedescs=N,N).
func TestAdoptSameFD(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	require.NoError(t, err)
	conn, err := simpleremote.AdoptFDs(fds[0], fds[0])
	require.NoError(t, err)
	ce, nb := fdFlags(t, fds[0])
	assert.True(t, ce)
	assert.True(t, nb)
	require.NoError(t, syscall.SetNonblock(fds[1], true))
	runSession(t, conn, os.NewFile(uintptr(fds[1]), "ctl"))
}

func runSession(t *testing.T, conn simpleremote.Conn, ctlConn interface {
	Read([]byte) (int, error)
	Write([]byte) (int, error)
	Close() error
}) {
	t.Helper()
	ts, err := newTestSession()
	require.NoError(t, err)
	defer ts.close()
	ca := simpleremote.New(conn, nil)
	require.NoError(t, ts.s.Attach(ca, ts.bi))
	ctl, err := wiretest.New(ctlConn, nil)
	require.NoError(t, err)
	got, err := ctl.CallName(ctxT(t), symEcho, []byte("via fds"))
	require.NoError(t, err)
	assert.Equal(t, []byte("via fds"), got)
	require.NoError(t, ctl.Finish(ctxT(t)))
	waitDone(t, ca)
	assert.NoError(t, ca.Err())
}

func itoa(n int) string { return string(appendInt(nil, n)) }

func appendInt(b []byte, n int) []byte {
	if n < 0 {
		return appendInt(append(b, '-'), -n)
	}
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

func TestAdoptInvalidFDs(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	good := int(r.Fd())
	for _, tc := range []struct {
		spec, want string
	}{
		{"filedescs=-1," + itoa(good), "-1 is not a valid file descriptor"},
		{"filedescs=" + itoa(good) + ",-5", "-5 is not a valid file descriptor"},
		{"filedescs=987654," + itoa(good), "987654 is not a valid file descriptor"},
		{"filedescs=" + itoa(good) + ",0987654", "0987654 is not a valid file descriptor"},
	} {
		spec, err := simpleremote.ParseSpec(tc.spec)
		require.NoError(t, err)
		_, err = spec.Open(context.Background())
		var ue *simpleremote.UsageError
		require.ErrorAs(t, err, &ue, tc.spec)
		assert.Equal(t, tc.want, ue.Msg)
	}
}

func TestListenTCP(t *testing.T) {
	l, err := simpleremote.ListenTCP("", "0")
	require.NoError(t, err)
	addr := l.Addr().(*net.TCPAddr)
	assert.Equal(t, "127.0.0.1", addr.IP.String(), "an empty host binds loopback only")

	// Only the requested address is bound: 127.0.0.2 (loopback too, on
	// Linux) is refused.
	other := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2), Port: addr.Port}
	if c, err := net.DialTCP("tcp", nil, other); err == nil {
		_ = c.Close()
		t.Fatal("127.0.0.2 reached a listener bound to 127.0.0.1")
	} else {
		assert.ErrorIs(t, err, syscall.ECONNREFUSED)
	}

	ctl, err := net.Dial("tcp", addr.String())
	require.NoError(t, err)
	defer ctl.Close()
	conn, err := l.Accept(ctxT(t))
	require.NoError(t, err)
	fd := assertTCPConn(t, conn)

	// One connection per process: the listener is closed.
	_, err = net.Dial("tcp", addr.String())
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)

	// Session end: shutdown before close, so the controller sees EOF
	// even though a duplicate of the descriptor (a child's inherited
	// copy) stays open.
	dup, err := syscall.Dup(fd)
	require.NoError(t, err)
	defer syscall.Close(dup)
	require.NoError(t, conn.Close())
	require.NoError(t, ctl.SetReadDeadline(time.Now().Add(5*time.Second)))
	n, err := ctl.Read(make([]byte, 1))
	assert.Zero(t, n)
	assert.Equal(t, io.EOF, err, "the controller sees end-of-file, not a timeout")
}

func TestListenTCPHosts(t *testing.T) {
	l, err := simpleremote.ListenTCP("0.0.0.0", "0")
	require.NoError(t, err)
	assert.True(t, l.Addr().(*net.TCPAddr).IP.IsUnspecified())
	// Explicitly all interfaces: 127.0.0.2 gets through.
	c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.2", itoa(l.Addr().(*net.TCPAddr).Port)))
	require.NoError(t, err)
	_ = c.Close()
	require.NoError(t, l.Close())
	require.NoError(t, l.Close(), "idempotent")

	l, err = simpleremote.ListenTCP("localhost", "0")
	require.NoError(t, err)
	assert.True(t, l.Addr().(*net.TCPAddr).IP.IsLoopback())
	require.NoError(t, l.Close())

	_, err = simpleremote.ListenTCP("no-such-host.invalid", "0")
	assert.ErrorContains(t, err, "simpleremote: listen")
}

func TestAcceptCancelled(t *testing.T) {
	l, err := simpleremote.ListenTCP("", "0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err = l.Accept(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	_, err = net.Dial("tcp", l.Addr().String())
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)
}

func TestListenUnix(t *testing.T) {
	path := filepath.Join(t.TempDir(), "exec.sock")
	spec, err := simpleremote.ParseSpec("unix=" + path)
	require.NoError(t, err)
	l, err := spec.Listen()
	require.NoError(t, err)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.ModeSocket, fi.Mode().Type())
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	ctl, err := net.Dial("unix", path)
	require.NoError(t, err)
	conn, err := l.Accept(ctxT(t))
	require.NoError(t, err)
	_, err = os.Stat(path)
	assert.ErrorIs(t, err, os.ErrNotExist, "socket file removed once the connection is accepted")
	_, err = net.Dial("unix", path)
	assert.Error(t, err, "a second connection is refused")
	ce, _ := fdFlags(t, rawFD(t, conn))
	assert.True(t, ce, "close-on-exec")
	runSession(t, conn, ctl)

	// Cancelled accept: the file is removed too.
	l, err = simpleremote.ListenUnix(path)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = l.Accept(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	_, err = os.Stat(path)
	assert.ErrorIs(t, err, os.ErrNotExist)

	// An existing file is never replaced.
	require.NoError(t, os.WriteFile(path, []byte("keep"), 0o644))
	_, err = simpleremote.ListenUnix(path)
	assert.Error(t, err)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(b))
	_, err = simpleremote.ListenUnix("")
	assert.Error(t, err)
}

func TestSpecOpenListen(t *testing.T) {
	spec, err := simpleremote.ParseSpec("listen=127.0.0.1:0")
	require.NoError(t, err)
	l, err := spec.Listen()
	require.NoError(t, err)
	go func() {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Error(err)
			return
		}
		_ = c.Close()
	}()
	conn, err := l.Accept(ctxT(t))
	require.NoError(t, err)
	require.NoError(t, conn.Close())
	require.NoError(t, conn.Close(), "idempotent")

	fspec, err := simpleremote.ParseSpec("filedescs=3,4")
	require.NoError(t, err)
	_, err = fspec.Listen()
	assert.Error(t, err)
}

// TestTCPAcksHeaderAtOnce: a controller that writes each message as
// header then payload with Nagle on (LLVM's do) gets its payload out
// without waiting for the delayed-ACK timer (some 40 ms a message on
// Linux). 20 calls stalled would take 800 ms or more; unstalled, a few.
func TestTCPAcksHeaderAtOnce(t *testing.T) {
	_, ctl, _ := attach(t, wiretest.TCPNagle, nil)
	ctx := ctxT(t)
	args := []byte("8 bytes!")                 // as small as LLVM's empty call
	_, err := ctl.CallName(ctx, symEcho, args) // the first call is never held
	require.NoError(t, err)
	const calls = 20
	start := time.Now()
	for range calls {
		got, err := ctl.CallName(ctx, symEcho, args)
		require.NoError(t, err)
		require.Equal(t, args, got)
	}
	took := time.Since(start)
	assert.Less(t, took, calls*20*time.Millisecond, "%d calls took %v: the payloads waited for delayed ACKs", calls, took)
}

func TestDialTCP(t *testing.T) {
	for _, host := range []string{"127.0.0.1", "localhost"} {
		t.Run(host, func(t *testing.T) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			defer l.Close()
			port := itoa(l.Addr().(*net.TCPAddr).Port)
			accepted := make(chan net.Conn, 1)
			go func() {
				c, err := l.Accept()
				if err == nil {
					accepted <- c
				}
				close(accepted)
			}()
			conn, err := simpleremote.DialTCP(ctxT(t), host, port)
			require.NoError(t, err)
			ctl := <-accepted
			require.NotNil(t, ctl)
			defer ctl.Close()
			assertTCPConn(t, conn)
			_, err = conn.Write([]byte("ping"))
			require.NoError(t, err)
			buf := make([]byte, 4)
			_, err = io.ReadFull(ctl, buf)
			require.NoError(t, err)
			assert.Equal(t, "ping", string(buf))
			require.NoError(t, conn.Close())
		})
	}
}

func TestDialTCPErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := itoa(l.Addr().(*net.TCPAddr).Port)
	require.NoError(t, l.Close())
	_, err = simpleremote.DialTCP(ctxT(t), "127.0.0.1", port)
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)
	assert.ErrorContains(t, err, "simpleremote: connect")

	_, err = simpleremote.DialTCP(ctxT(t), "no-such-host.invalid", "1")
	assert.ErrorContains(t, err, "resolving no-such-host.invalid:1")

	// A connect that never completes ends with its context: a listener
	// whose accept queue is full drops the SYNs.
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	require.NoError(t, err)
	defer syscall.Close(fd)
	require.NoError(t, syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	require.NoError(t, syscall.Listen(fd, 0))
	sa, err := syscall.Getsockname(fd)
	require.NoError(t, err)
	full := itoa(sa.(*syscall.SockaddrInet4).Port)
	for i := 0; i < 4; i++ { // fills the queue; later ones time out
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+full, 100*time.Millisecond); err == nil {
			defer c.Close()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = simpleremote.DialTCP(ctx, "127.0.0.1", full)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// assertTCPConn checks what every TCP Conn has (TCP_NODELAY,
// close-on-exec, non-blocking for the poller) and returns its descriptor.
func assertTCPConn(t *testing.T, conn simpleremote.Conn) int {
	t.Helper()
	fd := rawFD(t, conn)
	nodelay, err := syscall.GetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY)
	require.NoError(t, err)
	assert.Equal(t, 1, nodelay, "TCP_NODELAY")
	ce, nb := fdFlags(t, fd)
	assert.True(t, ce, "close-on-exec")
	assert.True(t, nb, "non-blocking (the poller's)")
	return fd
}
