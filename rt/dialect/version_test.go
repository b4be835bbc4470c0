//go:build linux

package dialect

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/internal/crossexec"
	"github.com/orcgo/orcrt/internal/staticctl"
)

// standInEnv makes the test binary, run with --version by
// releaseByVersionRun, a stand-in LLVM tool that misbehaves as it says.
const standInEnv = "ORCRT_TEST_VERSION_STANDIN"

func TestMain(m *testing.M) {
	if mode := os.Getenv(standInEnv); mode != "" && os.Getenv(versionRunEnv) != "" {
		os.Exit(runStandIn(mode))
	}
	os.Exit(m.Run())
}

// runStandIn: "hang" starts a child that writes its pid to the file
// $ORCRT_TEST_VERSION_STANDIN_PID, then both sleep; "leave-child" prints
// LLVM's text and exits, its child sleeping on with the output; "flood"
// writes without end; "version-then-flood" prints LLVM's text first. The
// version text is made at run time, lest this binary hold it.
func runStandIn(mode string) int {
	version := fmt.Sprintf("LLVM (http://llvm.org/):\n  LLVM version %d.1.7\n", 19)
	switch mode {
	case "hang", "leave-child":
		child := exec.Command(os.Args[0], "--version")
		child.Env = append(os.Environ(), standInEnv+"=sleep")
		if mode == "leave-child" {
			child.Stdout = os.Stdout
		}
		if child.Start() != nil {
			return 2
		}
		_ = os.WriteFile(os.Getenv(standInEnv+"_PID"), []byte(strconv.Itoa(child.Process.Pid)), 0o644)
		if mode == "leave-child" {
			os.Stdout.WriteString(version)
			return 0
		}
		time.Sleep(time.Minute)
	case "sleep":
		time.Sleep(time.Minute)
	case "version-then-flood":
		os.Stdout.WriteString(version)
		fallthrough
	case "flood":
		line := []byte(strings.Repeat("x", 1023) + "\n")
		for {
			if _, err := os.Stdout.Write(line); err != nil {
				return 3
			}
		}
	}
	return 0
}

// TestVersionRunBounded: the --version run of a program that hangs (and
// starts a child that hangs too) ends at the timeout with both killed; one
// that exits leaving a child on its output ends at once, its text read
// and the child killed; one that writes without end is cut off at the
// cap, its text read if it came first.
func TestVersionRunBounded(t *testing.T) {
	if crossexec.Emulated() {
		// The run execs the test binary itself, which only the emulator runs.
		t.Skip("the version run execs its program directly, and this one is emulated")
	}
	self, err := os.Executable()
	require.NoError(t, err)
	defer func(d time.Duration) { versionRunTimeout = d }(versionRunTimeout)
	versionRunTimeout = 300 * time.Millisecond

	for mode, want := range map[string]int{"hang": 0, "leave-child": 19} {
		pidFile := filepath.Join(t.TempDir(), "pid")
		t.Setenv(standInEnv, mode)
		t.Setenv(standInEnv+"_PID", pidFile)
		start := time.Now()
		r, _ := releaseByVersionRun(self, self)
		took := time.Since(start)
		assert.Equal(t, want, r, mode)
		assert.Less(t, took, versionRunTimeout+time.Second, "%s: the run outlived its timeout", mode)
		b, err := os.ReadFile(pidFile)
		require.NoError(t, err, "%s: the stand-in did not start its child", mode)
		child, err := strconv.Atoi(string(b))
		require.NoError(t, err)
		assert.Eventually(t, func() bool { return gone(child) }, 5*time.Second, 10*time.Millisecond,
			"%s: the stand-in's child %d outlived the run: the process group was not killed", mode, child)
		t.Logf("%s: %d in %v", mode, r, took)
	}

	versionRunTimeout = 10 * time.Second
	for mode, want := range map[string]int{"flood": 0, "version-then-flood": 19} {
		t.Setenv(standInEnv, mode)
		start := time.Now()
		r, line := releaseByVersionRun(self, self)
		assert.Equal(t, want, r, mode)
		assert.Less(t, time.Since(start), 5*time.Second, "%s: not cut off at the cap", mode)
		t.Logf("%s: %d %q in %v", mode, r, line, time.Since(start))
	}
}

// gone reports whether process pid has ended (a zombie counts: an init
// that does not reap may hold it).
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return unix.Kill(pid, 0) == unix.ESRCH
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z")
}

func TestReleaseInVersionOutput(t *testing.T) {
	for out, want := range map[string]int{
		"LLVM (http://llvm.org/):\n  LLVM version 19.1.7\n  Optimized build.\n": 19,
		"Debian LLVM version 22.1.8\n  Optimized build.\n":                      22,
		"Homebrew LLVM version 21.1.2\n":                                        21,
		"LLVM (http://llvm.org/):\n  LLVM version 24.0.0git\n":                  24,
		"usage: prog [--help]\n":                                                0,
		"":                                                                      0,
	} {
		r, line := releaseInVersionOutput([]byte(out))
		assert.Equal(t, want, r, out)
		if want > 0 {
			assert.Contains(t, line, "LLVM version "+strconv.Itoa(want))
		}
	}
}

// TestStaticControllers identifies real controllers linked statically
// against LLVM 22's and 19's libraries (no libLLVM mapped, no whole
// version text in the file) from /proc: placed in directories named as
// LLVM's release tarballs are, by the directory's name; placed where the
// directory says nothing, by running their executable with --version.
// Inside a --version run (an orcrt executor started by the program run)
// nothing is run again.
func TestStaticControllers(t *testing.T) {
	for _, tc := range staticctl.Placements {
		t.Run(fmt.Sprintf("%d/%s", tc.Release, tc.Dir), func(t *testing.T) {
			ctl := staticctl.Controller(t, tc.Release)
			r, linksCL := scanExecutable(ctl)
			require.Zero(t, r, "the static controller holds LLVM's whole version text: it tests nothing")
			require.True(t, linksCL)
			exe := staticctl.Place(t, ctl, filepath.Join(t.TempDir(), tc.Dir), "llvm-jitlink")
			start := time.Now()
			r, how := releaseOfRunning(t, exec.Command(exe, "-hold"), tc.How)
			assert.Equal(t, tc.Release, r, how)
			assert.True(t, strings.HasPrefix(how, tc.How), how)
			assert.Contains(t, how, exe)
			t.Logf("%v: %s", time.Since(start), how)
		})
	}
	t.Run("no-run-inside-a-run", func(t *testing.T) {
		exe := staticctl.Place(t, staticctl.Controller(t, 22), filepath.Join(t.TempDir(), "build/bin"), "llvm-jitlink")
		t.Setenv(versionRunEnv, "1")
		assert.Zero(t, releaseOfStarted(t, exec.Command(exe, "-hold")))
	})
	// A controller of another user (a served peer) does not choose what
	// this process runs.
	t.Run("no-run-for-another-user", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("dialect: starting a process of another user needs root")
		}
		top := t.TempDir()
		exe := staticctl.Place(t, staticctl.Controller(t, 22), filepath.Join(top, "build/bin"), "llvm-jitlink")
		for dir := filepath.Dir(exe); ; dir = filepath.Dir(dir) {
			require.NoError(t, os.Chmod(dir, 0o755)) // t.TempDir's are 0700
			if dir == filepath.Dir(top) {
				break
			}
		}
		cmd := exec.Command(exe, "-hold")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		assert.Zero(t, releaseOfStarted(t, cmd))
	})
}

// releaseOfStarted starts cmd, identifies it once and ends it.
func releaseOfStarted(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { _ = stdin.Close(); _ = cmd.Wait() }()
	r, how := ReleaseOfProcess(cmd.Process.Pid)
	t.Logf("%d %q", r, how)
	return r
}
