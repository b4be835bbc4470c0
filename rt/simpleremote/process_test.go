//go:build linux

package simpleremote_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/crossexec"
	"github.com/orcgo/orcrt/internal/llvmtools"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
)

const stockExecutor = "/usr/lib/llvm-22/bin/llvm-jitlink-executor"

// self returns the path of this test binary, which acts as a minimal
// executor when execEnv is set.
func self(t *testing.T) string {
	t.Helper()
	p, err := os.Executable()
	require.NoError(t, err)
	return p
}

func startSelf(t *testing.T, opts *wiretest.ExecOptions) *wiretest.Executor {
	t.Helper()
	var o wiretest.ExecOptions
	if opts != nil {
		o = *opts
	}
	o.Env = append(o.Env, execEnv+"=1")
	e, err := wiretest.StartExecutor(self(t), &o)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = e.Close()
		_, _ = e.WaitTimeout(waitLong)
	})
	return e
}

func haveStock(t *testing.T) bool {
	t.Helper()
	if _, err := os.Stat(stockExecutor); err != nil {
		if llvmtools.Required() {
			t.Fatalf("%s=1 but %s is missing", llvmtools.RequireEnv, stockExecutor)
		}
		return false
	}
	return true
}

// TestProcessSession runs a whole session against an executor process
// started exactly as llvm-jitlink starts one. A child of the executor
// (like a program the JIT'd code spawns) is still running when the
// session ends: because the executor's descriptors are close-on-exec, it
// does not hold the pipe open, and the controller sees end-of-file at
// once.
func TestProcessSession(t *testing.T) {
	e := startSelf(t, nil)
	ctx := ctxT(t)
	got, err := e.CallName(ctx, symEcho, []byte("cross-process"))
	require.NoError(t, err)
	assert.Equal(t, []byte("cross-process"), got)
	big := pattern(3 << 20)
	got, err = e.CallName(ctx, symEcho, big)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(big, got))

	pidb, err := e.CallName(ctx, symSpawn, nil)
	require.NoError(t, err)
	require.Len(t, pidb, 8)
	pid := int(binary.LittleEndian.Uint64(pidb))
	defer func() { _ = syscall.Kill(pid, syscall.SIGKILL) }()

	start := time.Now()
	require.NoError(t, e.Finish(ctx))
	st, err := e.WaitTimeout(waitLong)
	require.NoError(t, err)
	assert.Equal(t, 0, st.Code, "stderr: %s", e.Stderr())
	assert.Empty(t, e.Stderr())
	assert.Less(t, time.Since(start), 10*time.Second, "a child kept the session alive")
	assert.NoError(t, syscall.Kill(pid, 0), "the child is still running")
}

// TestProcessSameFD: filedescs=N,N over one socket.
func TestProcessSameFD(t *testing.T) {
	e := startSelf(t, &wiretest.ExecOptions{InFD: 5, OutFD: 5})
	got, err := e.CallName(ctxT(t), symEcho, []byte("x"))
	require.NoError(t, err)
	assert.Equal(t, []byte("x"), got)
	require.NoError(t, e.Finish(ctxT(t)))
	st, err := e.WaitTimeout(waitLong)
	require.NoError(t, err)
	assert.Equal(t, 0, st.Code)
}

// fatalProbes are Probe 2 of the stock-executor probes, plus the unknown
// sequence number of Probe 1.
var fatalProbes = []struct {
	name string
	raw  []byte
	code int
	msg  string
}{
	{"hangup empty", wiretest.HangupFrame(nil), 0, ""},
	{"hangup success", wiretest.HangupFrame([]byte{0}), 0, ""},
	{"hangup failure", wiretest.HangupFrame(append([]byte{1, 3, 0, 0, 0, 0, 0, 0, 0}, "bye"...)), 0, ""},
	{"hangup malformed", wiretest.HangupFrame([]byte{9}), 0, ""},
	{"opcode 4", wiretest.Frame(4, 0, 0, nil), 1, "Unexpected opcode"},
	{"setup from controller", wiretest.Frame(simpleremote.OpSetup, 0, 0, nil), 1, "Unexpected Setup opcode"},
	{"size 16", wiretest.RawHeader(16, 3, 0, 0), 1, "Message size too small"},
	{"EOF in header", wiretest.RawHeader(48, 3, 0, 0)[:12], 1, "Unexpected end-of-file"},
	{"EOF in payload", append(wiretest.RawHeader(48, 3, 0, 0), 1, 2), 1, "Unexpected end-of-file"},
	{"clean EOF", nil, 0, ""},
	{"unknown seq", wiretest.ResultFrame(999, nil), 1, "No call for sequence number 999"},
}

// TestProcessFatalInputs: exit status and stderr of the executor process
// for each probe, identical to the stock executor's (run side by side when
// LLVM 22 is installed).
func TestProcessFatalInputs(t *testing.T) {
	stock := haveStock(t)
	for _, p := range fatalProbes {
		t.Run(p.name, func(t *testing.T) {
			run := func(path string, env []string) (int, string) {
				e, err := wiretest.StartExecutor(path, &wiretest.ExecOptions{Env: env})
				require.NoError(t, err)
				defer e.Close()
				if p.raw != nil {
					require.NoError(t, e.SendRaw(p.raw))
				}
				require.NoError(t, e.CloseWrite())
				waitCh(t, e.Done(), "executor EOF")
				st, err := e.WaitTimeout(waitLong)
				require.NoError(t, err)
				assert.NoError(t, e.Err())
				return st.Code, e.Stderr()
			}
			code, stderr := run(self(t), []string{execEnv + "=1"})
			assert.Equal(t, p.code, code)
			want := ""
			if p.msg != "" {
				want = self(t) + ": " + p.msg + "\n"
			}
			assert.Equal(t, want, stderr)
			if stock {
				scode, sstderr := run(stockExecutor, nil)
				assert.Equal(t, scode, code, "exit status differs from the stock executor's")
				assert.Equal(t, strings.Replace(sstderr, stockExecutor, self(t), 1), stderr, "stderr differs from the stock executor's")
			}
		})
	}
}

// TestProcessUsage: command-line errors print the stock text and exit 1,
// byte for byte like llvm-jitlink-executor 22.
func TestProcessUsage(t *testing.T) {
	stock := haveStock(t)
	run := func(path string, env []string, args ...string) (int, string) {
		cmd := crossexec.Command(path, args...) // via QEMU under the arm64 job
		cmd.Env = append(os.Environ(), env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return code, stderr.String()
	}
	for _, args := range [][]string{
		{},
		{"filedescs=abc,4"},
		{"filedescs=+3,4"},
		{"filedescs"},
		{"filedescs=3"},
		{"listen=foo"},
		{"listen=:abc"},
		{"listen=:99999999999"},
		{"Listen=1"},
		{"test-foo", "filedescs=x"},
		{"filedescs=3,4,5"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stderr := run(self(t), []string{execEnv + "=1"}, args...)
			assert.Equal(t, 1, code)
			assert.True(t, strings.HasPrefix(stderr, "error: "), stderr)
			assert.True(t, strings.HasSuffix(stderr, "\n\n"+stockUsage), stderr)
			if stock {
				scode, sstderr := run(stockExecutor, nil, args...)
				assert.Equal(t, scode, code)
				assert.Equal(t, sstderr, stderr)
			}
		})
	}
	// Where the stock crashes (an unopened descriptor) orcrt gives a
	// usage error.
	code, stderr := run(self(t), []string{execEnv + "=1"}, "filedescs=99,99")
	assert.Equal(t, 1, code)
	assert.Equal(t, formatUsageError("99 is not a valid file descriptor"), stderr)
}

// TestProcessListen: listen=127.0.0.1:0 mode with a real process: accept
// one TCP connection, run a session, end on the controller's EOF.
func TestProcessListen(t *testing.T) {
	cmd := crossexec.Command(self(t), "listen=127.0.0.1:0")
	cmd.Env = append(os.Environ(), execEnv+"=1", "ORCRT_TEST_PRINT_ADDR=1")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	c, err := net.Dial("tcp", strings.TrimSpace(line))
	require.NoError(t, err)
	ctl, err := wiretest.New(c, nil)
	require.NoError(t, err)
	got, err := ctl.CallName(ctxT(t), symEcho, []byte("tcp"))
	require.NoError(t, err)
	assert.Equal(t, []byte("tcp"), got)
	require.NoError(t, ctl.Finish(ctxT(t)))
	require.NoError(t, cmd.Wait())
	assert.Empty(t, stderr.String())
}
