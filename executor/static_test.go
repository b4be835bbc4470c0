//go:build cgo && linux

package executor_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/llvmtools"
	"github.com/orcgo/orcrt/internal/staticctl"
	"github.com/orcgo/orcrt/rt/dialect"
)

// helloObject compiles a C main returning 7 with clang-n, for release n's
// JITLink.
func helloObject(t *testing.T, n int) string {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("clang and the controllers here build and link x86-64 code")
	}
	clang := fmt.Sprintf("/usr/bin/clang-%d", n)
	if _, err := os.Stat(clang); err != nil {
		llvmtools.Missing(t, "%v", err)
	}
	dir := t.TempDir()
	src, obj := filepath.Join(dir, "hello.c"), filepath.Join(dir, "hello.o")
	require.NoError(t, os.WriteFile(src, []byte(`#include <stdio.h>
int main(int argc, char **argv) {
  printf("Hello, argc=%d argv[1]=%s\n", argc, argv[1]);
  return 7;
}
`), 0o644))
	out, err := exec.Command(clang, "-c", "-fPIC", "-O1", src, "-o", obj).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return obj
}

// runJITLink runs an llvm-jitlink-like controller on obj with the
// executor, orcrt's with ORCRT_LOG=debug, and returns its stdout, stderr
// and exit status.
func runJITLink(t *testing.T, ctl, executor, obj string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(ctl, "-oop-executor="+executor, obj, "-args", "a", "b")
	cmd.Env = append(os.Environ(), "ORCRT_LOG=debug")
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		require.NoError(t, err)
	}
	return so.String(), withoutWire(se.String()), cmd.ProcessState.ExitCode()
}

// withoutWire drops the wire trace from an executor's debug log.
func withoutWire(log string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(log, "\n") {
		if !strings.Contains(line, " msg=wire ") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// TestStaticControllerSessions: llvm-jitlink-like controllers linked
// statically against LLVM 22's and 19's libraries, as in LLVM's release
// tarballs (no libLLVM mapped, no whole version text in the file), run
// the same session on orcrt-executor as on their release's own executor
// when orcrt-executor identifies them: by the release tarball's directory
// name, or, where the directory says nothing, by running them with
// --version. Given LLVM 23's dialect, the 19 controller fails at Setup.
func TestStaticControllerSessions(t *testing.T) {
	for _, tc := range staticctl.Placements {
		t.Run(fmt.Sprintf("%d/%s", tc.Release, tc.Dir), func(t *testing.T) {
			obj := helloObject(t, tc.Release)
			ctl := staticctl.Place(t, staticctl.Controller(t, tc.Release), filepath.Join(t.TempDir(), tc.Dir), "llvm-jitlink")
			d, err := dialect.ForRelease(tc.Release)
			require.NoError(t, err)

			out, log, code := runJITLink(t, ctl, orcrtBin, obj)
			assert.Contains(t, log, fmt.Sprintf(`msg=dialect speaks=%q controller=%d how="%s`, d.Name, tc.Release, tc.How), log)
			assert.Equal(t, 7, code, log)
			assert.Contains(t, log, "executor: exit status 0", log)
			t.Log(dialectLine(log))

			stock := fmt.Sprintf("/usr/lib/llvm-%d/bin/llvm-jitlink-executor", tc.Release)
			if _, err := os.Stat(stock); err != nil {
				llvmtools.Missing(t, "%v", err)
			}
			stockOut, stockLog, stockCode := runJITLink(t, ctl, stock, obj)
			assert.Equal(t, stockOut, out, "stdout with the stock executor")
			assert.Equal(t, "Hello, argc=2 argv[1]=b\n", stockOut, stockLog)
			assert.Equal(t, stockCode, code)
		})
	}
}

// TestLLVMJITLink19InReleaseDir: Debian's own llvm-jitlink 19, copied
// into a directory named as LLVM's 19.1.7 tarball, is identified by that
// name before the libLLVM it maps is read, and runs its session.
func TestLLVMJITLink19InReleaseDir(t *testing.T) {
	const jitlink19 = "/usr/lib/llvm-19/bin/llvm-jitlink"
	if _, err := os.Stat(jitlink19); err != nil {
		llvmtools.Missing(t, "%v", err)
	}
	obj := helloObject(t, 19)
	ctl := staticctl.Place(t, jitlink19, filepath.Join(t.TempDir(), "LLVM-19.1.7-Linux-X64/bin"), "llvm-jitlink")
	out, log, code := runJITLink(t, ctl, orcrtBin, obj)
	assert.Contains(t, log, `msg=dialect speaks="LLVM 19" controller=19 how="path of pid`, log)
	assert.Contains(t, log, "LLVM-19.1.7-Linux-X64/bin/llvm-jitlink)", log)
	assert.Equal(t, "Hello, argc=2 argv[1]=b\n", out, log)
	assert.Equal(t, 7, code, log)
	t.Log(dialectLine(log))
}

// dialectLine is the executor's log line saying which dialect it chose.
func dialectLine(log string) string {
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, " msg=dialect ") {
			return line
		}
	}
	return ""
}
