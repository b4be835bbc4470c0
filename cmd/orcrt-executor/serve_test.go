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
	"strconv"
	"strings"
	"sync"
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
	// The session's worker closed its copy of the listening socket before
	// Setup; the idle ones hold theirs.
	st = s.waitStatus(t, `pool idle=2 starting=0 size=2 accepting=2`)
	ino := listenInode(t, s.sock)
	assert.False(t, holdsSocket(t, m[1], ino), "the session's worker %s holds the listening socket", m[1])
	idle := 0
	for _, pid := range children(t, s.cmd.Process.Pid) {
		if pid != m[1] {
			assert.True(t, holdsSocket(t, pid, ino), "idle worker %s", pid)
			idle++
		}
	}
	assert.Equal(t, 2, idle, st)
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
	assertRefused(t, "unix", s.sock)
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

// TestServeWorkersRace: pooled workers accept on the shared socket
// themselves, racing for each connection: 40 controllers, 8 at a time,
// each get Setup once and a session of their own; every session has its
// own id and its own worker (a worker serves one connection), and none
// is refused or lost.
func TestServeWorkersRace(t *testing.T) {
	const n, parallel = 40, 8
	s := startServeProc(t, "-pool=4")
	s.waitStatus(t, `pool idle=4 starting=0 size=4 accepting=4`)
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			c, err := net.Dial("unix", s.sock)
			if !assert.NoError(t, err) {
				return
			}
			ctl, err := wiretest.New(c, nil)
			if !assert.NoError(t, err, "Setup") {
				c.Close()
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			assert.NoError(t, ctl.Finish(ctx))
		}()
	}
	wg.Wait()
	st := s.waitStatus(t, fmt.Sprintf(`sessions active=0 waiting=0 max=64 accepted=%d ended=%d`, n, n))
	assert.Contains(t, st, "refused total=0")
	s.drain(t)
	ids, workers := map[string]bool{}, map[string]bool{}
	lines := regexp.MustCompile(`msg=session id=(\d+) .* worker=(\d+) .*reason=(\S+)`).FindAllStringSubmatch(s.stderr.String(), -1)
	require.Len(t, lines, n, s.stderr.String())
	for _, m := range lines {
		assert.False(t, ids[m[1]], "session id %s twice", m[1])
		assert.False(t, workers[m[2]], "worker %s served two sessions", m[2])
		ids[m[1]], workers[m[2]] = true, true
		assert.Equal(t, "ended", m[3])
	}
	for i := 1; i <= n; i++ {
		assert.True(t, ids[strconv.Itoa(i)], "no session %d", i)
	}
}

// TestServeRefusedRemote: a TCP peer on another address than loopback
// (this host's own, where it has one) is refused by the worker that
// accepted it: the connection is closed, the server logs one line and
// counts it, and the worker goes on to serve the next controller.
func TestServeRefusedRemote(t *testing.T) {
	var ip net.IP
	addrs, err := net.InterfaceAddrs()
	require.NoError(t, err)
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			ip = n.IP
			break
		}
	}
	if ip == nil {
		t.Skip("no non-loopback IPv4 address")
	}
	s := startServeProc(t, "-pool=1", "listen="+ip.String()+":0")
	st := s.waitStatus(t, `pool idle=1 starting=0 size=1 accepting=1`)
	m := regexp.MustCompile(`listen=(\d+\.\d+\.\d+\.\d+:\d+)`).FindStringSubmatch(st)
	require.NotNil(t, m, st)
	assertRefused(t, "tcp", m[1])
	st = s.waitStatus(t, `refused total=1 remote=1`)
	assert.Contains(t, st, "accepted=0")
	ctl := s.connect(t) // the same worker, still waiting
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, ctl.Finish(ctx))
	s.waitStatus(t, `accepted=1 ended=1`)
	s.drain(t)
	refusals := regexp.MustCompile(`(?m)^.*msg=refused .*$`).FindAllString(s.stderr.String(), -1)
	require.Len(t, refusals, 1, s.stderr.String())
	assert.Contains(t, refusals[0], "is not a loopback peer")
	assert.Contains(t, refusals[0], "peer="+ip.String()+":")
}

// listenInode is the inode of the listening Unix socket at path.
func listenInode(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile("/proc/net/unix")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		// Num RefCount Protocol Flags Type St Inode Path; flag 0x10000:
		// listening.
		f := strings.Fields(line)
		if len(f) == 8 && f[7] == path && f[3] == "00010000" {
			return f[6]
		}
	}
	t.Fatalf("no listening socket at %s", path)
	return ""
}

// holdsSocket says whether process pid has socket inode ino open.
func holdsSocket(t *testing.T, pid, ino string) bool {
	t.Helper()
	ents, err := os.ReadDir("/proc/" + pid + "/fd")
	require.NoError(t, err)
	for _, e := range ents {
		if l, err := os.Readlink("/proc/" + pid + "/fd/" + e.Name()); err == nil && l == "socket:["+ino+"]" {
			return true
		}
	}
	return false
}

// children lists the pids of pid's child processes.
func children(t *testing.T, pid int) []string {
	t.Helper()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	require.NoError(t, err)
	var out []string
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err == nil {
			out = append(out, strings.Fields(string(b))...)
		}
	}
	return out
}

// assertRefused connects to addr and expects the connection closed
// without a byte: how serve refuses a peer.
func assertRefused(t *testing.T, network, addr string) {
	t.Helper()
	c, err := net.Dial(network, addr)
	require.NoError(t, err)
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	n, err := c.Read(make([]byte, 1))
	assert.Zero(t, n)
	assert.ErrorContains(t, err, "EOF")
}

// TestServeHandedOutput: with no pool the server accepts and hands the
// connection over; the worker opens the session's -output files itself,
// as for a connection it accepts.
func TestServeHandedOutput(t *testing.T) {
	dir := t.TempDir()
	s := startServeProc(t, "-v", "-pool=0", "-output="+dir)
	ctl := s.connect(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, ctl.Finish(ctx))
	s.waitStatus(t, `accepted=1 ended=1`)
	for _, ext := range []string{"stdout", "stderr"} {
		fi, err := os.Stat(filepath.Join(dir, "session-1."+ext))
		require.NoError(t, err, "stderr:\n%s", s.stderr.String())
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	}
	s.drain(t)
	assert.Contains(t, s.stderr.String(), "msg=\"handed over\"")
}
