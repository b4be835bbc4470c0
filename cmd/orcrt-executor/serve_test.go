//go:build linux

package main_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/crossexec"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
)

// serveProc is `orcrt-executor serve` on a Unix socket, with a status
// socket; its log is in stderr.
type serveProc struct {
	cmd              *exec.Cmd
	sock, statusPath string
	stderr           wiretest.SyncBuffer
	done             chan struct{} // closed at exit, waitErr set
	waitErr          error
}

func startServeProc(t *testing.T, flags ...string) *serveProc {
	t.Helper()
	if crossexec.Emulated() {
		t.Skip("serve re-executes itself for its workers: not under the emulation wrapper")
	}
	dir := t.TempDir()
	s := &serveProc{sock: filepath.Join(dir, "s.sock"), statusPath: filepath.Join(dir, "status.sock"), done: make(chan struct{})}
	s.cmd = exec.Command(bin, append(append([]string{"serve", "-status=" + s.statusPath}, flags...), "unix="+s.sock)...)
	s.cmd.Stderr = &s.stderr
	require.NoError(t, s.cmd.Start())
	go func() { s.waitErr = s.cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		_ = s.cmd.Process.Kill()
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		if c, err := net.Dial("unix", s.statusPath); err == nil {
			c.Close()
			return s
		}
		require.True(t, time.Now().Before(deadline), "serve never answered; stderr:\n%s", s.stderr.String())
		time.Sleep(10 * time.Millisecond)
	}
}

func (s *serveProc) status(t *testing.T) string {
	out, err := exec.Command(bin, "status", s.statusPath).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}

// waitStatus polls the status until it matches re.
func (s *serveProc) waitStatus(t *testing.T, re string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := s.status(t)
		if regexp.MustCompile(re).MatchString(st) {
			return st
		}
		require.True(t, time.Now().Before(deadline), "status never matched %q:\n%s", re, st)
		time.Sleep(20 * time.Millisecond)
	}
}

// drain sends SIGTERM and waits for a clean exit.
func (s *serveProc) drain(t *testing.T) {
	t.Helper()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-s.done:
		require.NoError(t, s.waitErr, "serve's exit; stderr:\n%s", s.stderr.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("serve did not drain; stderr:\n%s", s.stderr.String())
	}
}

func (s *serveProc) connect(t *testing.T) *wiretest.Controller {
	t.Helper()
	c, err := net.Dial("unix", s.sock)
	require.NoError(t, err)
	ctl, err := wiretest.New(c, nil)
	require.NoError(t, err, "Setup; stderr:\n%s", s.stderr.String())
	t.Cleanup(func() { _ = ctl.Close() })
	return ctl
}

// TestServeSessions: sessions over the Unix socket get Setup from a
// pooled worker, show in the status with the worker's limits set, end
// with one log line each, and SIGTERM drains the server.
func TestServeSessions(t *testing.T) {
	s := startServeProc(t, "-pool=2", "-rlimit-as=64G", "-rlimit-cpu=1h")
	s.waitStatus(t, `pool idle=2 starting=0 size=2`)
	ctl := s.connect(t)
	st := s.waitStatus(t, `sessions active=1 `)
	m := regexp.MustCompile(`session id=1 worker=(\d+) network=unix peer=\S+ uid=(\d+) pid=(\d+)`).FindStringSubmatch(st)
	require.NotNil(t, m, st)
	assert.Equal(t, fmt.Sprint(os.Getuid()), m[2])
	assert.Equal(t, fmt.Sprint(os.Getpid()), m[3])
	limits, err := os.ReadFile("/proc/" + m[1] + "/limits")
	require.NoError(t, err)
	assert.Regexp(t, `Max address space\s+68719476736\s+68719476736`, string(limits))
	assert.Regexp(t, `Max cpu time\s+3600\s+3601`, string(limits))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, ctl.Finish(ctx))
	s.waitStatus(t, `sessions active=0 waiting=0 max=64 accepted=1 ended=1`)
	s.drain(t)
	log := s.stderr.String()
	assert.Regexp(t, `msg=session id=1 network=unix .* worker=`+m[1]+` .*exit=0 reason=ended`, log)
	assert.Contains(t, log, "msg=drained sessions=1")
}

// TestServeIdleTimeout: a controller that sends nothing is ended after
// -idle-timeout (the executor hangs up), logged as such.
func TestServeIdleTimeout(t *testing.T) {
	s := startServeProc(t, "-pool=1", "-idle-timeout=300ms")
	ctl := s.connect(t)
	start := time.Now()
	select {
	case <-ctl.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the idle session was not ended")
	}
	assert.GreaterOrEqual(t, time.Since(start), 250*time.Millisecond)
	s.waitStatus(t, `ended=1`)
	s.drain(t)
	assert.Contains(t, s.stderr.String(), "reason=idle-timeout")
}

// TestServeMaxSessions: with -max-sessions=1 a second controller is
// refused (closed, one log line) while the first is served.
func TestServeMaxSessions(t *testing.T) {
	s := startServeProc(t, "-pool=1", "-max-sessions=1")
	ctl := s.connect(t)
	c, err := net.Dial("unix", s.sock)
	require.NoError(t, err)
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	n, err := c.Read(make([]byte, 1))
	assert.Zero(t, n)
	assert.ErrorContains(t, err, "EOF")
	c.Close()
	assert.Contains(t, s.waitStatus(t, `refused total=1`), "max-sessions=1")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, ctl.Finish(ctx))
	s.drain(t)
	assert.Regexp(t, `msg=refused .*-max-sessions`, s.stderr.String())
}

// TestServeUsage: serve without an address, or with a bad one, is a
// usage error (exit 2); status without a socket fails.
func TestServeUsage(t *testing.T) {
	r := runExec(t, bin, "serve")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "no address")
	r = runExec(t, bin, "serve", "-h")
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stderr, "-max-sessions")
	r = runExec(t, bin, "serve", "filedescs=3,4")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "is not unix=<path>")
	r = runExec(t, bin, "status", filepath.Join(t.TempDir(), "none"))
	assert.Equal(t, 1, r.code)
}

// TestUpstreamSpellings: LLVM main's socket:adopt=FD and tcp:connect=
// serve a session as filedescs= and listen= do.
func TestUpstreamSpellings(t *testing.T) {
	t.Run("socket:adopt", func(t *testing.T) {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
		require.NoError(t, err)
		ours, theirs := os.NewFile(uintptr(fds[0]), "ctl"), os.NewFile(uintptr(fds[1]), "exe")
		cmd := crossexec.Command(bin, "socket:adopt=3")
		cmd.ExtraFiles = []*os.File{theirs}
		require.NoError(t, cmd.Start())
		theirs.Close()
		c, err := net.FileConn(ours)
		require.NoError(t, err)
		ours.Close()
		endSession(t, c, cmd)
	})
	t.Run("tcp:connect", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer l.Close()
		cmd := crossexec.Command(bin, "tcp:connect="+l.Addr().String())
		require.NoError(t, cmd.Start())
		c, err := l.Accept()
		require.NoError(t, err)
		endSession(t, c, cmd)
	})
	r := runExec(t, bin, "socket:adopt=x")
	assert.Equal(t, 1, r.code)
	assert.True(t, strings.HasPrefix(r.stderr, "error: x is not a valid file descriptor\n"), r.stderr)
}

// endSession reads Setup on c, ends the session and expects exit 0.
func endSession(t *testing.T, c net.Conn, cmd *exec.Cmd) {
	t.Helper()
	ctl, err := wiretest.New(c, nil)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, ctl.Finish(ctx))
	require.NoError(t, cmd.Wait())
}

// TestServeSystemd: serve adopts the listening socket systemd passes
// (LISTEN_FDS), here from systemd-socket-activate, when given no
// address.
func TestServeSystemd(t *testing.T) {
	activate, err := exec.LookPath("systemd-socket-activate")
	if err != nil {
		t.Skip("systemd-socket-activate not installed")
	}
	if crossexec.Emulated() {
		t.Skip("serve re-executes itself for its workers: not under the emulation wrapper")
	}
	dir := t.TempDir()
	sock, status := filepath.Join(dir, "s.sock"), filepath.Join(dir, "status.sock")
	cmd := exec.Command(activate, "-l", sock, bin, "serve", "-pool=1", "-status="+status)
	var stderr wiretest.SyncBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var c net.Conn
	for deadline := time.Now().Add(20 * time.Second); ; {
		if c, err = net.Dial("unix", sock); err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "no socket; stderr:\n%s", stderr.String())
		time.Sleep(10 * time.Millisecond)
	}
	ctl, err := wiretest.New(c, nil) // systemd-socket-activate starts serve now
	require.NoError(t, err, "stderr:\n%s", stderr.String())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, ctl.Finish(ctx))
	out, err := exec.Command(bin, "status", status).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), `listen="systemd=unix:`+sock+`"`)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait())
	assert.Regexp(t, `msg=session id=1 network=unix .*reason=ended`, stderr.String())
}
