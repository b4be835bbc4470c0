//go:build linux

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/examples/internal/exampletest"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
)

const (
	llvmJITLink = "/usr/lib/llvm-22/bin/llvm-jitlink"
	drain       = 300 * time.Millisecond
	// margin is what ending may take beyond the drain timeout: the
	// signal or the end of input reaching Serve, and the exit, on a
	// loaded machine.
	margin              = 3 * time.Second
	prSetChildSubreaper = 36 // <linux/prctl.h>
)

var pidLine = regexp.MustCompile(`blocked: pid (\d+): the plugin waits in host_wait\n`)

// TestHostEndsWhileBlocked: the plugin's main is blocked for ever in a
// host call. Killing the controller (SIGKILL) or sending the host SIGTERM
// or SIGINT ends the host within its drain timeout, with the
// DrainTimeoutError's message and exit status 1.
func TestHostEndsWhileBlocked(t *testing.T) {
	exampletest.Require(t, llvmJITLink)
	// The host is llvm-jitlink's child; adopting it once llvm-jitlink is
	// gone gives its exit status here.
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		t.Skipf("prctl(PR_SET_CHILD_SUBREAPER): %v", e)
	}
	host := exampletest.BuildHost(t)
	plugin := exampletest.CompileC(t, "plugin/plugin.c")
	for _, tc := range []struct {
		name string
		end  func(t *testing.T, jitlink *exec.Cmd, host int)
		why  string
	}{
		{"controller-killed", func(t *testing.T, jitlink *exec.Cmd, _ int) { require.NoError(t, jitlink.Process.Kill()) },
			"after the controller disconnected"},
		{"SIGTERM", func(t *testing.T, _ *exec.Cmd, host int) { require.NoError(t, syscall.Kill(host, syscall.SIGTERM)) },
			"after the session was cancelled (terminated signal received)"},
		{"SIGINT", func(t *testing.T, _ *exec.Cmd, host int) { require.NoError(t, syscall.Kill(host, syscall.SIGINT)) },
			"after the session was cancelled (interrupt signal received)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jitlink, pid, stdout, stderr := start(t, host, plugin)
			start := time.Now()
			tc.end(t, jitlink, pid)
			require.True(t, ended(pid, drain+margin), "the host still runs %v after the %s", drain+margin, tc.name)
			took := time.Since(start)
			t.Logf("the host ended %v after the %s", took.Round(time.Millisecond), tc.name)
			assert.GreaterOrEqual(t, took, drain, "the host waited for its drain timeout")
			assert.Less(t, took, drain+margin)

			// llvm-jitlink ends on the Hangup (or was killed); then the
			// host is ours to reap.
			jitlinkDone := make(chan struct{})
			go func() { _ = jitlink.Wait(); close(jitlinkDone) }()
			select {
			case <-jitlinkDone:
			case <-time.After(10 * time.Second):
				t.Error("llvm-jitlink did not end after its executor hung up")
				_ = jitlink.Process.Kill()
				<-jitlinkDone
			}
			ws, ok := waitPid(pid, 5*time.Second)
			require.True(t, ok, "the host was not reaped")
			assert.Equal(t, 1, ws.ExitStatus(), "%v", ws)
			out, _ := io.ReadAll(stdout)
			assert.Empty(t, string(out), "the plugin's main never returned")
			want := fmt.Sprintf("blocked: executor: calls into JIT'd code still running %v %s; not waiting for them\n", drain, tc.why)
			assert.True(t, strings.HasSuffix(stderr.String(), want), "stderr:\n%s\nwant the suffix:\n%s", stderr.String(), want)
		})
	}
}

// start runs llvm-jitlink with the host as its executor and waits until
// the plugin is blocked in host_wait; it returns the host's pid and the
// plugin's stdout after its first line. Cleanup kills both.
func start(t *testing.T, host, plugin string) (jitlink *exec.Cmd, pid int, stdout *bufio.Reader, stderr *wiretest.SyncBuffer) {
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	errR, errW, err := os.Pipe()
	require.NoError(t, err)
	jitlink = exec.Command(llvmJITLink, "-oop-executor="+host, plugin)
	jitlink.Stdout, jitlink.Stderr = outW, errW
	jitlink.Env = append(os.Environ(), "BLOCKED_DRAIN_TIMEOUT="+drain.String())
	require.NoError(t, jitlink.Start())
	_, _ = outW.Close(), errW.Close()
	t.Cleanup(func() {
		_ = jitlink.Process.Kill()
		_, _ = jitlink.Process.Wait()
		_, _ = outR.Close(), errR.Close()
	})
	stderr = &wiretest.SyncBuffer{}
	go func() { _, _ = io.Copy(stderr, errR) }()
	stdout = bufio.NewReader(outR)
	line, err := stdout.ReadString('\n')
	require.NoError(t, err, "stderr: %s", stderr.String())
	require.Equal(t, "plugin: calling host_wait\n", line)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m := pidLine.FindStringSubmatch(stderr.String()); m != nil {
			pid, err = strconv.Atoi(m[1])
			require.NoError(t, err)
			break
		}
		require.True(t, time.Now().Before(deadline), "no pid line; stderr: %s", stderr.String())
		time.Sleep(5 * time.Millisecond)
	}
	t.Cleanup(func() {
		// Still the host (pid reuse aside: it has not been reaped)?
		if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); strings.HasPrefix(string(b), host+"\x00") {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		waitPid(pid, 5*time.Second)
	})
	return jitlink, pid, stdout, stderr
}

// ended polls until pid has exited (gone or a zombie: llvm-jitlink never
// reaps its executor) or d has passed.
func ended(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return true
		}
		// pid (comm) state ...: comm may hold spaces, so after the last ')'.
		if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 0 && f[0] == "Z" {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// waitPid reaps a process this one adopted (child subreaper), or reports
// false if it is still running after d.
func waitPid(pid int, d time.Duration) (ws syscall.WaitStatus, ok bool) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if got == pid {
			return ws, true
		}
		if err != nil && !errors.Is(err, syscall.EINTR) {
			return ws, false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return ws, false
}
