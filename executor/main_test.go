//go:build cgo

package executor_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/internal/llvmtools"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
)

// orcrtBin is an orcrt-executor built for the process tests (or
// ORCRT_EXECUTOR); stockBin is LLVM's, for comparisons (skipped if
// missing unless ORCRT_REQUIRE_LLVM=1).
var (
	orcrtBin string
	stockBin = "/usr/lib/llvm-22/bin/llvm-jitlink-executor"
)

func TestMain(m *testing.M) {
	if bin := os.Getenv(helperEnv); bin != "" {
		os.Exit(runHelperController(bin))
	}
	code := func() int {
		orcrtBin = os.Getenv("ORCRT_EXECUTOR")
		if orcrtBin == "" {
			dir, err := os.MkdirTemp("", "orcrt-executor-test-")
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			defer os.RemoveAll(dir)
			orcrtBin = filepath.Join(dir, "orcrt-executor")
			out, err := exec.Command("go", "build", "-o", orcrtBin, "github.com/orcgo/orcrt/cmd/orcrt-executor").CombinedOutput()
			if err != nil {
				fmt.Fprintf(os.Stderr, "building orcrt-executor: %v\n%s", err, out)
				return 1
			}
		}
		return m.Run()
	}()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func requireStock(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(stockBin); err != nil {
		llvmtools.Missing(t, "stock executor not installed: %v", err)
	}
}

const callTimeout = 30 * time.Second

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), callTimeout)
	t.Cleanup(cancel)
	return c
}

// session is one executor under test with a controller attached.
type session struct {
	*wiretest.Controller
	kind string
	// end ends the session as llvm-jitlink does (close, no Hangup) and
	// returns how the executor ended: for a process its exit status and
	// stderr, in process Serve's error.
	end func(t testing.TB) outcome
	// pid of the executor process (ours in process).
	pid int
}

type outcome struct {
	status wiretest.ExitStatus // process only
	stderr string              // process only
	err    error               // in process only
}

// startProcess starts bin as llvm-jitlink would.
func startProcess(t testing.TB, bin string, opts *wiretest.ExecOptions) *session {
	t.Helper()
	ex, err := wiretest.StartExecutor(bin, opts)
	require.NoError(t, err)
	s := &session{Controller: ex.Controller, kind: "process", pid: ex.Cmd.Process.Pid}
	ended := false
	var out outcome
	s.end = func(t testing.TB) outcome {
		t.Helper()
		if ended {
			return out
		}
		ended = true
		c, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		_ = ex.Finish(c)
		st, err := ex.WaitTimeout(callTimeout)
		require.NoError(t, err, "stderr: %s", ex.Stderr())
		out = outcome{status: st, stderr: ex.Stderr()}
		return out
	}
	t.Cleanup(func() { s.end(t) })
	return s
}

// startInProcess serves a new Executor in this process over OS pipes.
func startInProcess(t testing.TB, opts executor.Options) *session {
	t.Helper()
	execEnd, ctlEnd, err := wiretest.Connect(wiretest.Pipe)
	require.NoError(t, err)
	ex, err := executor.New(opts)
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() { errc <- ex.Serve(context.Background(), execEnd) }()
	ctl, err := wiretest.New(ctlEnd, nil)
	require.NoError(t, err)
	s := &session{Controller: ctl, kind: "inprocess", pid: os.Getpid()}
	ended := false
	var out outcome
	s.end = func(t testing.TB) outcome {
		t.Helper()
		if ended {
			return out
		}
		ended = true
		c, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		_ = ctl.Finish(c)
		select {
		case out.err = <-errc:
		case <-time.After(callTimeout):
			t.Fatal("Serve did not return after the controller closed")
		}
		return out
	}
	t.Cleanup(func() { s.end(t) })
	return s
}

// eachTarget runs f against an in-process executor and an orcrt-executor
// process.
func eachTarget(t *testing.T, f func(t *testing.T, s *session)) {
	t.Run("inprocess", func(t *testing.T) { f(t, startInProcess(t, executor.Options{})) })
	t.Run("process", func(t *testing.T) { f(t, startProcess(t, orcrtBin, nil)) })
}

// fatalText is what an executor process prints for a fatal error.
func fatalText(bin, msg string) string { return bin + ": " + msg + "\n" }

func trimLines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

// executorOptions are the options of in-process executors in tests.
func executorOptions() executor.Options { return executor.Options{} }
