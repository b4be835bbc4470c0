// Package exampletest builds and runs the example hosts against real LLVM
// 22 for their tests: it builds the host, compiles its plugin with
// clang-22 and runs the controller with the host as its executor.
//
// Without Debian's llvm-22, clang-22 and clang-tools-22 a test skips,
// unless ORCRT_REQUIRE_LLVM=1, when it fails.
package exampletest

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/orcgo/orcrt/internal/llvmtools"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
)

const (
	llvmBin = "/usr/lib/llvm-22/bin"
	// ORCRuntime is LLVM 22's ORC runtime, for clang-repl.
	ORCRuntime = "/usr/lib/llvm-22/lib/clang/22/lib/linux/liborc_rt-x86_64.a"
	timeout    = 90 * time.Second
)

// Require skips (or, under ORCRT_REQUIRE_LLVM=1, fails) t without tools.
func Require(t testing.TB, tools ...string) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		// Cross-built and run under QEMU (make arm64-unit): the host's
		// x86-64 controller cannot start an arm64 host here.
		t.Skip("the examples run against the host's x86-64 LLVM")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			llvmtools.Missing(t, "%s: %v (Debian's llvm-22 clang-22 clang-tools-22)", tool, err)
		}
	}
}

// BuildHost builds the main package in the current directory.
func BuildHost(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "host")
	if out, err := exec.Command("go", "build", "-race="+raceFlag(), "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building the host: %v\n%s", err, out)
	}
	return bin
}

// CompileC compiles a C source of the example to an object with clang-22.
func CompileC(t testing.TB, src string) string {
	t.Helper()
	Require(t, "clang-22")
	obj := filepath.Join(t.TempDir(), filepath.Base(src)+".o")
	if out, err := exec.Command("clang-22", "-c", "-fPIC", "-O1", src, "-o", obj).CombinedOutput(); err != nil {
		t.Fatalf("compiling %s: %v\n%s", src, err, out)
	}
	return obj
}

// Result is one controller run.
type Result struct {
	Exit           int
	Stdout, Stderr string
}

// Start starts llvm-jitlink 22 with host as its executor. Finish it with
// Wait.
func Start(t testing.TB, host string, stdin []byte, args ...string) *Run {
	t.Helper()
	return StartCommand(t, stdin, llvmBin+"/llvm-jitlink", append([]string{"-oop-executor=" + host}, args...)...)
}

// StartCommand starts a controller command.
func StartCommand(t testing.TB, stdin []byte, name string, args ...string) *Run {
	t.Helper()
	Require(t, name)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	cmd := exec.CommandContext(ctx, name, args...)
	r := &Run{t: t, cmd: cmd, cancel: cancel}
	cmd.Stdout, cmd.Stderr = &r.stdout, &r.stderr
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	return r
}

// Run is a running controller.
type Run struct {
	t              testing.TB
	cmd            *exec.Cmd
	cancel         func()
	stdout, stderr wiretest.SyncBuffer
}

// Kill kills the controller with SIGKILL.
func (r *Run) Kill() { _ = r.cmd.Process.Signal(syscall.SIGKILL) }

// Output returns what the controller and its executor printed so far.
func (r *Run) Output() (stdout, stderr string) { return r.stdout.String(), r.stderr.String() }

// Wait waits for the controller (and the executor, which shares its
// output pipes) to finish.
func (r *Run) Wait() Result {
	r.t.Helper()
	defer r.cancel()
	err := r.cmd.Wait()
	res := Result{Stdout: r.stdout.String(), Stderr: r.stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.Exit = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.Exit = 128 + int(ws.Signal())
		}
	default:
		r.t.Fatalf("%s: %v\n%s", r.cmd.Path, err, res.Stderr)
	}
	return res
}

// WaitFor polls until the output contains s.
func (r *Run) WaitFor(s string) {
	r.t.Helper()
	deadline := time.Now().Add(timeout)
	for !bytes.Contains([]byte(r.stdout.String()+r.stderr.String()), []byte(s)) {
		if time.Now().After(deadline) {
			out, errs := r.Output()
			r.t.Fatalf("no %q within %v\nstdout: %s\nstderr: %s", s, timeout, out, errs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
