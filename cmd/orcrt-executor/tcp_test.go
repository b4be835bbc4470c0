//go:build linux

package main_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/crossexec"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/sps"
)

// listening is an executor process in listen= mode, bound and listening.
type listening struct {
	cmd    *exec.Cmd
	port   int
	stderr wiretest.SyncBuffer
}

// startListening starts path with listen=<host>:<port> and waits until
// the socket listens (seen in /proc/net/tcp, without connecting: the
// executor accepts exactly one connection). It returns the local address
// the socket is bound to, as /proc/net/tcp shows it ("0100007F" is
// 127.0.0.1, "00000000" every interface).
func startListening(t *testing.T, path, host string) (*listening, string) {
	t.Helper()
	l := &listening{port: freePort(t)}
	l.cmd = crossexec.Command(path, fmt.Sprintf("listen=%s:%d", host, l.port))
	l.cmd.Stderr = &l.stderr
	require.NoError(t, l.cmd.Start())
	t.Cleanup(func() { _ = l.cmd.Process.Kill(); _ = l.cmd.Wait() })
	want := fmt.Sprintf(":%04X", l.port)
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, err := os.ReadFile("/proc/net/tcp")
		require.NoError(t, err)
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if len(f) > 3 && strings.HasSuffix(f[1], want) && f[3] == "0A" { // TCP_LISTEN
				return l, strings.TrimSuffix(f[1], want)
			}
		}
		require.True(t, time.Now().Before(deadline), "%s never listened on port %d; stderr %s", path, l.port, l.stderr.String())
		time.Sleep(10 * time.Millisecond)
	}
}

func (l *listening) dial(host string) (net.Conn, error) {
	return net.DialTimeout("tcp", net.JoinHostPort(host, strconv.Itoa(l.port)), 5*time.Second)
}

// TestTCPListensOnlyOnRequestedHost: listen=127.0.0.1:P binds 127.0.0.1
// only — a connection to 127.0.0.2:P (another loopback address) is
// refused — and listen=:P binds 127.0.0.1 too, never every interface
// (the stock executor binds INADDR_ANY whatever the host: logged).
func TestTCPListensOnlyOnRequestedHost(t *testing.T) {
	for _, host := range []string{"127.0.0.1", ""} {
		t.Run("host="+host, func(t *testing.T) {
			l, bound := startListening(t, bin, host)
			assert.Equal(t, "0100007F", bound, "bound to 127.0.0.1")
			_, err := l.dial("127.0.0.2")
			assert.ErrorIs(t, err, syscall.ECONNREFUSED, "127.0.0.2 must be refused")
			c, err := l.dial("127.0.0.1")
			require.NoError(t, err)
			ctl, err := wiretest.New(c, nil)
			require.NoError(t, err)
			finish(t, ctl)
			require.NoError(t, l.cmd.Wait())
		})
	}
	t.Run("stock", func(t *testing.T) {
		if _, err := os.Stat(stockBin); err != nil {
			t.Skip(err)
		}
		l, bound := startListening(t, stockBin, "127.0.0.1")
		t.Logf("the stock executor, told listen=127.0.0.1:%d, binds %s (00000000 = every interface)", l.port, bound)
	})
}

func finish(t *testing.T, ctl *wiretest.Controller) {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, ctl.Finish(c))
}

// TestTCPSecondConnectionRefused: while the one session runs, a second
// connection is refused (the listener is closed after the accept, not
// left with a backlog that would queue it).
func TestTCPSecondConnectionRefused(t *testing.T) {
	l, _ := startListening(t, bin, "127.0.0.1")
	c, err := l.dial("127.0.0.1")
	require.NoError(t, err)
	ctl, err := wiretest.New(c, nil)
	require.NoError(t, err)
	_, err = ctl.CallName(context.Background(), "__llvm_orc_bootstrap_mem_read_buffers_wrapper", make([]byte, 8))
	require.NoError(t, err, "the first session runs")
	_, err = l.dial("127.0.0.1")
	assert.ErrorIs(t, err, syscall.ECONNREFUSED, "second connection")
	finish(t, ctl)
	require.NoError(t, l.cmd.Wait())
}

// Generic Linux system call numbers (the same on amd64 and arm64).
const (
	sysPidfdOpen  = 434
	sysPidfdGetfd = 438
)

// peerSocket finds, among the descriptors of process pid, the TCP socket
// whose other end is conn, and returns its number there and a duplicate
// of it here (pidfd_getfd), to be closed by the caller.
func peerSocket(t *testing.T, pid int, conn net.Conn) (remoteFD, localDup int) {
	t.Helper()
	pidfd, _, e := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if e != 0 {
		t.Skipf("pidfd_open: %v", e)
	}
	defer syscall.Close(int(pidfd))
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	require.NoError(t, err)
	mine := conn.LocalAddr().(*net.TCPAddr)
	for _, ent := range ents {
		target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, ent.Name()))
		if err != nil || !strings.HasPrefix(target, "socket:") {
			continue
		}
		n, _ := strconv.Atoi(ent.Name())
		fd, _, e := syscall.Syscall(sysPidfdGetfd, pidfd, uintptr(n), 0)
		if e != 0 {
			t.Skipf("pidfd_getfd: %v", e)
		}
		if sa, err := syscall.Getpeername(int(fd)); err == nil {
			if in4, ok := sa.(*syscall.SockaddrInet4); ok && in4.Port == mine.Port && net.IP(in4.Addr[:]).Equal(mine.IP) {
				return n, int(fd)
			}
		}
		_ = syscall.Close(int(fd))
	}
	t.Fatalf("no socket of process %d is connected to %v", pid, mine)
	return 0, 0
}

// forEachExecutor runs f as a subtest for orcrt-executor ("orcrt") and
// the stock executor ("stock"), skipping an executor that is missing.
func forEachExecutor(t *testing.T, f func(t *testing.T, path string)) {
	for _, path := range []string{bin, stockBin} {
		t.Run(map[bool]string{true: "orcrt", false: "stock"}[path == bin], func(t *testing.T) {
			if _, err := os.Stat(path); err != nil {
				t.Skip(err)
			}
			f(t, path)
		})
	}
}

// connectTCP starts the executor at path listening on 127.0.0.1 and
// connects a test controller to it.
func connectTCP(t *testing.T, path string) (*listening, net.Conn, *wiretest.Controller) {
	l, _ := startListening(t, path, "127.0.0.1")
	c, err := l.dial("127.0.0.1")
	require.NoError(t, err)
	ctl, err := wiretest.New(c, nil)
	require.NoError(t, err)
	return l, c, ctl
}

// TestTCPNoDelay: the executor's end of the connection has TCP_NODELAY
// set, read from the executor's own socket (pidfd_getfd) — no 40 ms
// Nagle stalls (docs/protocol.md §10). The stock executor does not set it
// (logged).
func TestTCPNoDelay(t *testing.T) {
	forEachExecutor(t, func(t *testing.T, path string) {
		l, c, ctl := connectTCP(t, path)
		_, dup := peerSocket(t, l.cmd.Process.Pid, c)
		v, err := syscall.GetsockoptInt(dup, syscall.IPPROTO_TCP, syscall.TCP_NODELAY)
		require.NoError(t, err)
		_ = syscall.Close(dup)
		if path == bin {
			assert.Equal(t, 1, v, "TCP_NODELAY on the executor's socket")
		} else {
			t.Logf("stock executor: TCP_NODELAY = %d", v)
		}
		_ = ctl.Close()
		_ = l.cmd.Process.Kill()
	})
}

// TestTCPShutdownBeforeClose: the executor shuts its socket down before
// closing it, so the controller sees end-of-file at once even when
// another descriptor refers to the same socket — here a duplicate the
// JIT'd program made with dup(2), as a child process inheriting it would
// hold one. The executor is kept alive after its close by a JIT'd call
// still running (usleep), so end-of-file by close() alone would only come
// with the process's exit; it must come first. (The stock executor only
// closes: logged.)
func TestTCPShutdownBeforeClose(t *testing.T) {
	forEachExecutor(t, func(t *testing.T, path string) {
		l, c, ctl := connectTCP(t, path)
		fd, dup := peerSocket(t, l.cmd.Process.Pid, c)
		_ = syscall.Close(dup)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		h, err := wiretest.Call3(ctx, ctl, ctl.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_open_wrapper"), sps.DylibManagerOpen,
			ctl.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_Instance"), "", 0)
		require.NoError(t, err)
		require.NoError(t, h.Err)
		res, err := wiretest.Call2(ctx, ctl, ctl.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_resolve_wrapper"), sps.DylibManagerResolve,
			h.Value, []sps.LookupElement{{Name: []byte("dup"), Required: true}, {Name: []byte("usleep"), Required: true}})
		require.NoError(t, err)
		require.NoError(t, res.Err)
		runInt := ctl.MustSymbol("__llvm_orc_bootstrap_run_as_int_function_wrapper")
		newFD, err := wiretest.Call2(ctx, ctl, runInt, sps.RunAsIntFunction, res.Value[0].Value.Addr, int32(fd))
		require.NoError(t, err)
		require.Positive(t, newFD, "dup(%d) in the executor", fd)
		const busy = 1500 * time.Millisecond
		_, err = ctl.Start(runInt, sps.RunAsIntFunction.AppendArgs(nil, res.Value[1].Value.Addr, int32(busy/time.Microsecond)))
		require.NoError(t, err)
		time.Sleep(50 * time.Millisecond) // usleep runs

		start := time.Now()
		require.NoError(t, ctl.CloseWrite()) // FIN: the executor's session ends
		var eof, exited time.Duration
		select {
		case <-ctl.Done():
			eof = time.Since(start)
		case <-time.After(10 * time.Second):
			t.Fatal("no end-of-file from the executor")
		}
		werr := l.cmd.Wait()
		exited = time.Since(start)
		t.Logf("end-of-file after %v, exit after %v (%v)", eof.Round(time.Millisecond), exited.Round(time.Millisecond), werr)
		_ = ctl.Close()
		if path != bin {
			return
		}
		assert.NoError(t, werr)
		assert.Less(t, eof, busy/2, "end-of-file came with the session's end, not with the process's exit")
		assert.Greater(t, exited, busy/2, "the executor stayed alive for the running call")
	})
}
