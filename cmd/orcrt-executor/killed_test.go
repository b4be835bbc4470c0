//go:build linux

package main_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/llvmtools"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
)

const llvmJITLink = "/usr/lib/llvm-22/bin/llvm-jitlink"

const prSetChildSubreaper = 36 // <linux/prctl.h>

func requireLLVM(t *testing.T) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("drives an x86-64 llvm-jitlink")
	}
	for _, tool := range []string{llvmJITLink, "/usr/bin/clang-22"} {
		if _, err := os.Stat(tool); err != nil {
			llvmtools.Missing(t, "%v", err)
		}
	}
}

// childrenOf returns the pids of pid's children.
func childrenOf(t *testing.T, pid int) []int {
	var out []int
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, task := range tasks {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, task.Name()))
		for _, f := range strings.Fields(string(b)) {
			n, err := strconv.Atoi(f)
			require.NoError(t, err)
			out = append(out, n)
		}
	}
	return out
}

// waitPid waits for a process this one adopted (child subreaper) and
// returns its status, or ok=false if it is still running after d.
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

// TestLLVMJITLinkKilled: the real controller, llvm-jitlink, is killed
// (SIGKILL) while the JIT'd main runs in the executor. When main returns
// later, the executor flushes the program's output and exits 0; when
// main never returns, orcrt-executor gives up after ORCRT_DRAIN_TIMEOUT
// and exits 1 with a message, where the stock executor runs for ever.
func TestLLVMJITLinkKilled(t *testing.T) {
	requireLLVM(t)
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		t.Skipf("prctl(PR_SET_CHILD_SUBREAPER): %v", e)
	}
	dir := t.TempDir()
	compile := func(name, src string) string {
		c, o := filepath.Join(dir, name+".c"), filepath.Join(dir, name+".o")
		require.NoError(t, os.WriteFile(c, []byte(src), 0o644))
		out, err := exec.Command("clang-22", "-c", "-O1", "-fPIC", c, "-o", o).CombinedOutput()
		require.NoError(t, err, "%s", out)
		return o
	}
	returns := compile("returns", `#include <stdio.h>
#include <unistd.h>
int main(void) { printf("ready\n"); fflush(stdout); usleep(800000); printf("finished, buffered\n"); return 3; }
`)
	forever := compile("forever", `#include <stdio.h>
#include <unistd.h>
int main(void) { printf("ready\n"); fflush(stdout); for (;;) pause(); }
`)
	for _, tc := range []struct {
		name, executor, obj string
		env                 []string
		wantExit            int    // -1: still running after the bound
		wantStdout          string // after "ready\n"
		wantStderr          string
		bound               time.Duration
	}{
		{name: "main-returns/orcrt", executor: bin, obj: returns, wantStdout: "finished, buffered\n", bound: 800*time.Millisecond + 5*time.Second},
		{name: "main-returns/stock", executor: stockBin, obj: returns, bound: 800*time.Millisecond + 5*time.Second},
		{name: "main-never-returns/orcrt", executor: bin, obj: forever, env: []string{"ORCRT_DRAIN_TIMEOUT=1s"}, wantExit: 1,
			wantStderr: ": executor: calls into JIT'd code still running 1s after the controller disconnected; not waiting for them\n", bound: 6 * time.Second},
		{name: "main-never-returns/stock", executor: stockBin, obj: forever, wantExit: -1, bound: 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat(tc.executor); err != nil {
				t.Skip(err)
			}
			outR, outW, err := os.Pipe()
			require.NoError(t, err)
			errR, errW, err := os.Pipe()
			require.NoError(t, err)
			cmd := exec.Command(llvmJITLink, "-oop-executor="+tc.executor, tc.obj)
			cmd.Stdout, cmd.Stderr = outW, errW
			cmd.Env = append(os.Environ(), tc.env...)
			require.NoError(t, cmd.Start())
			_, _ = outW.Close(), errW.Close()
			var stderr wiretest.SyncBuffer
			go func() { _, _ = io.Copy(&stderr, errR) }()
			out := bufio.NewReader(outR)
			line, err := out.ReadString('\n')
			require.NoError(t, err, "stderr: %s", stderr.String())
			require.Equal(t, "ready\n", line)
			kids := childrenOf(t, cmd.Process.Pid)
			require.Len(t, kids, 1, "llvm-jitlink's executor")
			exe := kids[0]
			t.Cleanup(func() { _ = syscall.Kill(exe, syscall.SIGKILL); waitPid(exe, 5*time.Second) })

			start := time.Now()
			require.NoError(t, cmd.Process.Kill())
			_ = cmd.Wait()
			ws, exited := waitPid(exe, tc.bound)
			took := time.Since(start)
			if !exited {
				// It still holds the output pipes: kill it before reading.
				_ = syscall.Kill(exe, syscall.SIGKILL)
				waitPid(exe, 5*time.Second)
			}
			rest, _ := io.ReadAll(out) // the executor's copy of the pipe is closed once it has exited
			t.Logf("executor exited=%v (%v) %v after llvm-jitlink was killed; stdout %q, stderr %q", exited, ws, took.Round(time.Millisecond), rest, stderr.String())
			if tc.wantExit == -1 {
				assert.False(t, exited, "the stock executor outlives its controller")
				return
			}
			require.True(t, exited, "the executor did not exit within %v of its controller's death", tc.bound)
			assert.False(t, ws.Signaled(), "%v", ws)
			assert.Equal(t, tc.wantExit, ws.ExitStatus())
			if tc.executor == bin {
				assert.Equal(t, tc.wantStdout, string(rest), "the program's buffered output is flushed")
				if tc.wantStderr == "" {
					assert.Empty(t, stderr.String())
				} else {
					assert.True(t, strings.HasSuffix(stderr.String(), tc.wantStderr), stderr.String())
				}
			}
		})
	}
}
