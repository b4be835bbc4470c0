//go:build cgo && linux

package executor_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/internal/crossexec"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/sps"
)

// The test binary doubles as a controller of any LLVM release: copied to
// where that release's tools live (or mapping a file named as its
// libLLVM, or carrying its version text), it starts orcrt-executor as
// llvm-jitlink does, so orcrt-executor identifies it as that release.
const (
	helperEnv    = "ORCRT_TEST_CONTROLLER" // the executor to start
	helperMapEnv = "ORCRT_TEST_CONTROLLER_MAP"
	helperBadEnv = "ORCRT_TEST_CONTROLLER_BAD" // send a malformed message after Setup
	// hang up with this error, as main's controller does
	helperFailEnv = "ORCRT_TEST_CONTROLLER_HANGUP"
)

// runHelperController is the controller: it starts the executor with
// ORCRT_LOG=debug, reads Setup, optionally calls one function, ends the
// session without a call (as a controller failing at Setup does), or
// after a malformed message, and writes the executor's stderr to its
// stdout, its exit status last.
func runHelperController(bin string) int {
	if lib := os.Getenv(helperMapEnv); lib != "" {
		f, err := os.Open(lib)
		if err != nil {
			fmt.Println(err)
			return 2
		}
		if _, err := unix.Mmap(int(f.Fd()), 0, 4096, unix.PROT_READ, unix.MAP_PRIVATE); err != nil {
			fmt.Println(err)
			return 2
		}
	}
	ex, err := wiretest.StartExecutor(bin, &wiretest.ExecOptions{Env: []string{"ORCRT_LOG=debug"}})
	if err != nil {
		fmt.Println(err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if os.Getenv(helperBadEnv) != "" {
		_ = ex.SendRaw(make([]byte, 32)) // MsgSize 0: shorter than its header
	}
	if msg := os.Getenv(helperFailEnv); msg != "" {
		_ = ex.Hangup(sps.Marshal(sps.ErrorCodec, errors.New(msg)))
	}
	_ = ex.Finish(ctx)
	st, err := ex.WaitTimeout(callTimeout)
	fmt.Print(ex.Stderr())
	fmt.Println("executor:", st, err)
	return 0
}

// runAsRelease runs the helper controller from a copy of the test binary
// at dir/name, with text appended to the copy, and returns what it
// printed.
func runAsRelease(t *testing.T, dir, name, text string, env ...string) string {
	t.Helper()
	if crossexec.Emulated() {
		t.Skip("the helper controller is the test binary, run natively")
	}
	self, err := os.Executable()
	require.NoError(t, err)
	img, err := os.ReadFile(self)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	ctl := filepath.Join(dir, name)
	img = append(img, text...)
	require.NoError(t, os.WriteFile(ctl, img, 0o755))
	cmd := exec.Command(ctl)
	cmd.Env = append(os.Environ(), append([]string{helperEnv + "=" + orcrtBin}, env...)...)
	done := make(chan struct{})
	var out []byte
	go func() {
		out, err = cmd.CombinedOutput()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * callTimeout):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("the helper controller did not end: %s", out)
	}
	require.NoError(t, err, "%s", out)
	return string(out)
}

// TestIdentifiesLLVM23: orcrt-executor identifies an LLVM 23 controller by
// its install directory, by the libLLVM it maps and by the version text
// in its executable, and speaks LLVM 23's dialect to it.
func TestIdentifiesLLVM23(t *testing.T) {
	tmp := t.TempDir()
	lib := filepath.Join(tmp, "lib", "libLLVM.so.23.1")
	require.NoError(t, os.MkdirAll(filepath.Dir(lib), 0o755))
	require.NoError(t, os.WriteFile(lib, make([]byte, 4096), 0o644))
	for _, tc := range []struct {
		name, dir, how, text string
		env                  []string
	}{
		{"install-dir", filepath.Join(tmp, "usr/lib/llvm-23/bin"), "path of pid", "", nil},
		{"libLLVM", filepath.Join(tmp, "plain"), "libLLVM.so.23.1 mapped by pid", "", []string{helperMapEnv + "=" + lib}},
		// The text is made at run time: as a constant it would be in this
		// very binary, which starts the other tests' executors.
		{"version-text", filepath.Join(tmp, "static"), "version text in pid", fmt.Sprintf("LLVM version %d.1.3\n", 23), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := runAsRelease(t, tc.dir, "llvm-jitlink", tc.text, tc.env...)
			assert.Contains(t, out, `msg=dialect speaks="LLVM 23" controller=23 how="`+tc.how, out)
			assert.Contains(t, out, "executor: exit status 0", out)
			assert.NotContains(t, out, "does not speak", out)
		})
	}
}

// TestUnknownNewerRelease: a controller of a release newer than any orcrt
// knows gets orcrt's newest dialect and a log line saying which and why;
// when it fails at Setup (ends the session without a call), and when it
// breaks the protocol, orcrt's error names the release and says orcrt
// does not speak it yet.
func TestUnknownNewerRelease(t *testing.T) {
	unspoken := "(the controller is LLVM 99, which orcrt does not speak yet; it spoke " + dialect.Newest.Name + ": path of pid"
	out := runAsRelease(t, filepath.Join(t.TempDir(), "usr/lib/llvm-99/bin"), "llvm-jitlink", "")
	assert.Contains(t, out, "controller=99", out)
	assert.Contains(t, out, `msg="dialect: orcrt does not speak the controller's LLVM release" controller=99`, out)
	assert.Contains(t, out, "LLVM 99 is newer than any release orcrt knows and orcrt does not speak it yet, so it speaks "+dialect.Newest.Name, out)
	// The newest dialect (main's) counts an end without Hangup as an error.
	assert.Contains(t, out, "orcrt-executor: Connection closed without hangup "+unspoken, out)
	assert.Contains(t, out, "executor: exit status 1", out)
	t.Log(strings.TrimSpace(out))

	out = runAsRelease(t, filepath.Join(t.TempDir(), "usr/lib/llvm-99/bin"), "llvm-jitlink", "", helperBadEnv+"=1")
	assert.Contains(t, out, "orcrt-executor: Message size too small "+unspoken, out)
	assert.Contains(t, out, "executor: exit status 1", out)
	t.Log(strings.TrimSpace(out))

	// A controller failing at Setup that hangs up with its error, as
	// main's does: orcrt prints that error with the release.
	out = runAsRelease(t, filepath.Join(t.TempDir(), "usr/lib/llvm-99/bin"), "llvm-jitlink", "",
		helperFailEnv+"=Symbols not found: [ orc_rt_ci_sps_call_main2 ]")
	assert.Contains(t, out, "orcrt-executor: Symbols not found: [ orc_rt_ci_sps_call_main2 ] "+unspoken, out)
	assert.Contains(t, out, "executor: exit status 1", out)
	t.Log(strings.TrimSpace(out))
}

// TestUnspokenOlderRelease: a controller of a release orcrt never spoke
// (17) gets the dialect for controllers not identified, and, hanging up
// without a call, the note naming its release.
func TestUnspokenOlderRelease(t *testing.T) {
	out := runAsRelease(t, filepath.Join(t.TempDir(), "usr/lib/llvm-17/bin"), "llvm-jitlink", "")
	assert.Contains(t, out, "orcrt does not speak LLVM 17", out)
	assert.Contains(t, out, "the controller (LLVM 17) hung up without a call; orcrt spoke "+dialect.Unidentified.Name, out)
	assert.Contains(t, out, "executor: exit status 0", out)
}
