//go:build cgo && linux

package serve_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/crossexec"
	"github.com/orcgo/orcrt/internal/llvmtools"
	"github.com/orcgo/orcrt/serve"
	"github.com/orcgo/orcrt/serve/worker"
)

// TestMain makes this test binary its own serve worker, as the main of
// a program that embeds serve.Run does.
func TestMain(m *testing.M) {
	worker.MaybeRunWorker(nil)
	os.Exit(m.Run())
}

const llvm22 = "/usr/lib/llvm-22/bin/"

// record is one log call.
type record struct {
	level, msg string
	kv         map[string]string
}

// recordLog is a serve.Logger that keeps what it is told.
type recordLog struct {
	mu   sync.Mutex
	recs []record
}

func (l *recordLog) add(level, msg string, args []any) {
	r := record{level: level, msg: msg, kv: map[string]string{}}
	for i := 0; i+1 < len(args); i += 2 {
		r.kv[fmt.Sprint(args[i])] = fmt.Sprint(args[i+1])
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recs = append(l.recs, r)
}

func (l *recordLog) Debug(msg string, args ...any) { l.add("DEBUG", msg, args) }
func (l *recordLog) Info(msg string, args ...any)  { l.add("INFO", msg, args) }
func (l *recordLog) Warn(msg string, args ...any)  { l.add("WARN", msg, args) }
func (l *recordLog) Error(msg string, args ...any) { l.add("ERROR", msg, args) }

// dump is every record, for a failure's message.
func (l *recordLog) dump() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return fmt.Sprintf("%+v", l.recs)
}

// find waits up to d for the first record with msg.
func (l *recordLog) find(msg string, d time.Duration) (record, bool) {
	for deadline := time.Now().Add(d); ; time.Sleep(5 * time.Millisecond) {
		l.mu.Lock()
		for _, r := range l.recs {
			if r.msg == msg {
				l.mu.Unlock()
				return r, true
			}
		}
		l.mu.Unlock()
		if time.Now().After(deadline) {
			return record{}, false
		}
	}
}

// startRun runs serve.Run with cfg (a recordLog as its Logger) until the
// test ends, and returns the log and the address it serves.
func startRun(t testing.TB, cfg serve.Config) (*recordLog, string, func() error) {
	log := &recordLog{}
	cfg.Logger = log
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve.Run(ctx, cfg) }()
	stop := sync.OnceValue(func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(60 * time.Second):
			return errors.New("serve.Run did not return within 60s of its context's end")
		}
	})
	t.Cleanup(func() { _ = stop() })
	r, ok := log.find("serving", 30*time.Second)
	require.True(t, ok, "serve.Run never served: %s", log.dump())
	_, addr, _ := strings.Cut(strings.Fields(r.kv["listen"])[0], "=")
	return log, addr, stop
}

// TestRunServesJITLink: serve.Run embedded in a Go program (this test
// binary, its own worker through MaybeRunWorker) serves an llvm-jitlink
// 22 client over loopback TCP: the client's exit status is the JIT'd
// main's, the program's output goes to the session's file, the session
// is logged, and Run returns once drained.
func TestRunServesJITLink(t *testing.T) {
	if crossexec.Emulated() {
		t.Skip("serve re-executes itself for its workers, and x86-64 llvm-jitlink links for the host: not under the emulation wrapper")
	}
	for _, tool := range []string{"llvm-jitlink", "clang"} {
		if _, err := os.Stat(llvm22 + tool); err != nil {
			llvmtools.Missing(t, "%s: %v", tool, err)
		}
	}
	dir := t.TempDir()
	obj := filepath.Join(dir, "served.o")
	out, err := exec.Command(llvm22+"clang", "-c", "-O1", "-o", obj, filepath.Join("testdata", "served.c")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	outDir := filepath.Join(dir, "out")
	log, addr, stop := startRun(t, serve.Config{Addrs: []string{"listen=127.0.0.1:0"}, Pool: 1, MaxSessions: 4,
		DrainTimeout: 10 * time.Second, OutputDir: outDir})

	// llvm-jitlink 22 in -oop-executor-connect mode waits at exit for the
	// executor to hang up; the worker watches for its controller's
	// socket to close (as orcrt-executor listen= does), so it returns.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, llvm22+"llvm-jitlink", "-oop-executor-connect="+addr, obj, "-args", "served", "embedded")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out, err = cmd.CombinedOutput()
	require.NoError(t, ctx.Err(), "llvm-jitlink hung: %s", out)
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "%s", out)
	assert.Equal(t, 7, ee.ExitCode(), "the JIT'd main's status: %s", out)

	require.NoError(t, stop())
	sess, ok := log.find("session", 0)
	require.True(t, ok, "no session line: %s", log.dump())
	assert.Equal(t, "ended", sess.kv["reason"])
	assert.Equal(t, "LLVM 22", sess.kv["dialect"])
	assert.Equal(t, "tcp", sess.kv["network"])
	assert.Equal(t, fmt.Sprint(cmd.Process.Pid), sess.kv["pid"], "the controller's process")
	stdout, err := os.ReadFile(filepath.Join(outDir, "session-"+sess.kv["id"]+".stdout"))
	require.NoError(t, err)
	assert.Equal(t, "served: embedded\n", string(stdout))
	_, ok = log.find("drained", 0)
	assert.True(t, ok, "Run returned before it drained")
}
