//go:build linux

package main_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/orcgo/orcrt/internal/crossexec"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
)

var (
	bin      string
	stockBin = "/usr/lib/llvm-22/bin/llvm-jitlink-executor"
)

func TestMain(m *testing.M) {
	os.Exit(func() int {
		dir, err := os.MkdirTemp("", "orcrt-executor-cmd-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		bin = filepath.Join(dir, "orcrt-executor")
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
			return 1
		}
		code := m.Run()
		if err := goleak.Find(); code == 0 && err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			return 1
		}
		return code
	}())
}

type result struct {
	code           int
	stdout, stderr string
}

func runExec(t *testing.T, path string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := crossexec.CommandContext(ctx, path, args...) // via QEMU under the arm64 job
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	cmd.Stdin = nil
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
		if ws := ee.Sys().(syscall.WaitStatus); ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, so.String(), strings.ReplaceAll(se.String(), path, "<argv0>")}
}

// ourUsage is what orcrt-executor prints after a command-line error's
// "error: ..." line; stockUsage is what the stock executor prints there.
const (
	ourUsage = "Usage:\n" +
		"  orcrt-executor [-v] [test-jitloadergdb] filedescs=<infd>,<outfd> [args...]\n" +
		"  orcrt-executor [-v] [test-jitloadergdb] listen=<host>:<port> [args...]\n" +
		"  orcrt-executor [-v] [test-jitloadergdb] unix=<path> [args...]\n" +
		"  orcrt-executor [-v] <infd> <outfd> [args...]\n" +
		"  orcrt-executor -h | --help | --version\n"
	stockUsage = "Usage:\n" +
		"  llvm-jitlink-executor [test-jitloadergdb] filedescs=<infd>,<outfd> [args...]\n" +
		"  llvm-jitlink-executor [test-jitloadergdb] listen=<host>:<port> [args...]\n"
)

// TestUsageLikeStock: command-line errors print exactly the stock error
// line and exit 1; the usage that follows is orcrt-executor's own. Each
// case is also run against the stock executor when it is installed:
// everything but the usage must be identical.
func TestUsageLikeStock(t *testing.T) {
	usage := "\n\n" + ourUsage
	gdb0 := "__jit_debug_descriptor.last_entry = 0x0000000000000000\n"
	tests := []struct {
		args   []string
		stderr string
	}{
		{nil, "error: insufficient arguments" + usage},
		{[]string{"foo"}, `error: invalid specifier type "foo"` + usage},
		{[]string{""}, `error: invalid specifier type ""` + usage},
		{[]string{"test-jitloadergdb"}, gdb0 + `error: invalid specifier type ""` + usage},
		{[]string{"test-foo", "test-jitloadergdb", "bar"}, gdb0 + `error: invalid specifier type "bar"` + usage},
		{[]string{"test-foo", "filedescs"}, "error:  is not a valid file descriptor" + usage},
		{[]string{"debug", "filedescs=1,2"}, `error: invalid specifier type "debug"` + usage},
		{[]string{"filedescs=3"}, "error:  is not a valid file descriptor" + usage},
		{[]string{"filedescs=a,4"}, "error: a is not a valid file descriptor" + usage},
		{[]string{"filedescs=0x3,4"}, "error: 0x3 is not a valid file descriptor" + usage},
		{[]string{"filedescs=+3,4"}, "error: +3 is not a valid file descriptor" + usage},
		{[]string{"filedescs=99999999999,1"}, "error: 99999999999 is not a valid file descriptor" + usage},
		{[]string{"filedescs=-1,4"}, "<argv0>: Invalid input file descriptor -1\n"},
		{[]string{"filedescs=3,-1"}, "<argv0>: Invalid output file descriptor -1\n"},
		{[]string{"listen=x"}, "error: port number '' is not a valid integer" + usage},
		{[]string{"listen=:abc"}, "error: port number 'abc' is not a valid integer" + usage},
		{[]string{"Filedescs=1,2"}, `error: invalid specifier type "Filedescs"` + usage},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, "_"), func(t *testing.T) {
			r := runExec(t, bin, tc.args...)
			assert.Equal(t, 1, r.code)
			assert.Equal(t, tc.stderr, r.stderr)
			assert.Empty(t, r.stdout)
			if _, err := os.Stat(stockBin); err == nil {
				s := runExec(t, stockBin, tc.args...)
				if strings.HasSuffix(s.stderr, "\n\n"+stockUsage) {
					require.True(t, strings.HasSuffix(r.stderr, "\n\n"+ourUsage), r.stderr)
					s.stderr = strings.TrimSuffix(s.stderr, stockUsage) + ourUsage
				}
				assert.Equal(t, s, r, "stock executor differs")
			}
		})
	}
}

// TestHelp: -h, -help and --help print orcrt-executor's usage and help,
// naming every mode and the environment variables it reads, to stdout,
// and exit 0 (also after -v, and whatever follows).
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"-help"}, {"--help"}, {"-v", "--help"}, {"--help", "filedescs=x"}} {
		t.Run(strings.Join(args, "_"), func(t *testing.T) {
			r := runExec(t, bin, args...)
			assert.Equal(t, 0, r.code)
			assert.Empty(t, r.stderr)
			assert.True(t, strings.HasPrefix(r.stdout, ourUsage), r.stdout)
			for _, want := range []string{
				"filedescs=<infd>,<outfd>", "listen=<host>:<port>", "unix=<path>", "<infd> <outfd>",
				"lli-child-target", "test-jitloadergdb", "-v ", "--version", "listening on",
				"ORCRT_LOG", "ORCRT_LLVM", "ORCRT_DRAIN_TIMEOUT", "ORCRT_MAX_MESSAGE_SIZE", "ORCRT_CPUPROFILE",
			} {
				assert.Contains(t, r.stdout, want)
			}
			assert.NotContains(t, r.stdout, "llvm-jitlink-executor [")
		})
	}
	// Only as the first argument: after a specifier it is an ignored
	// trailing arg, before one an invalid specifier type, as for the stock.
	r := runExec(t, bin, "test-foo", "--help")
	assert.Equal(t, result{code: 1, stderr: `error: invalid specifier type "--help"` + "\n\n" + ourUsage}, r)
}

// TestVersion: --version prints orcrt's version, the Go version and the
// LLVM releases spoken, to stdout, and exits 0.
func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "-version"} {
		r := runExec(t, bin, arg)
		assert.Equal(t, 0, r.code)
		assert.Empty(t, r.stderr)
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		require.Len(t, lines, 3, r.stdout)
		assert.Regexp(t, `^orcrt-executor (devel|v\d+\.\d+\.\d+\S*)( \(.*\))?$`, lines[0])
		assert.Equal(t, "Go "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH, lines[1])
		assert.Equal(t, "LLVM "+dialect.Supported(), lines[2])
	}
}

// TestListenPortZero: listen=127.0.0.1:0 binds a free port and says which
// on stderr, "orcrt-executor: listening on 127.0.0.1:PORT", before it
// accepts; a controller connecting there gets a session. An explicit
// port is not reported: stderr stays the stock's (empty).
func TestListenPortZero(t *testing.T) {
	cmd := crossexec.Command(bin, "listen=127.0.0.1:0")
	var so bytes.Buffer
	var se wiretest.SyncBuffer
	cmd.Stdout, cmd.Stderr = &so, &se
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	re := regexp.MustCompile(`^orcrt-executor: listening on (127\.0\.0\.1:(\d+))\n$`)
	var m []string
	for deadline := time.Now().Add(20 * time.Second); m == nil; {
		m = re.FindStringSubmatch(se.String())
		if m == nil {
			require.True(t, time.Now().Before(deadline), "no listening line; stderr %q", se.String())
			time.Sleep(10 * time.Millisecond)
		}
	}
	assert.NotEqual(t, "0", m[2])
	conn, err := net.DialTimeout("tcp", m[1], 5*time.Second)
	require.NoError(t, err)
	ctl, err := wiretest.New(conn, nil)
	require.NoError(t, err)
	_, err = ctl.CallName(context.Background(), "__llvm_orc_bootstrap_mem_read_buffers_wrapper", make([]byte, 8))
	require.NoError(t, err)
	finish(t, ctl)
	require.NoError(t, cmd.Wait(), se.String())
	assert.Equal(t, m[0], se.String(), "nothing but the listening line")
	assert.Empty(t, so.String())

	l, _ := startListening(t, bin, "127.0.0.1")
	c, err := l.dial("127.0.0.1")
	require.NoError(t, err)
	ctl, err = wiretest.New(c, nil)
	require.NoError(t, err)
	_, err = ctl.CallName(context.Background(), "__llvm_orc_bootstrap_mem_read_buffers_wrapper", make([]byte, 8))
	require.NoError(t, err)
	finish(t, ctl)
	require.NoError(t, l.cmd.Wait())
	assert.Empty(t, l.stderr.String(), "an explicit port is not reported")
}

// TestDeviations documents the command lines where orcrt-executor is
// deliberately not byte-identical to the stock executor.
func TestDeviations(t *testing.T) {
	// A descriptor that is not open: the stock segfaults (bad output) or
	// sends Setup and then fails (bad input); orcrt reports it first.
	r := runExec(t, bin, "filedescs=99,98")
	assert.Equal(t, result{code: 1, stderr: "<argv0>: Bad file descriptor\n"}, r)
	r = runExec(t, bin, "filedescs=99,1")
	assert.Equal(t, result{code: 1, stderr: "<argv0>: Bad file descriptor\n"}, r)
	// lli-child-target's `IN OUT` is filedescs=IN,OUT (the stock would
	// call "99" an invalid specifier type).
	r = runExec(t, bin, "99", "98")
	assert.Equal(t, result{code: 1, stderr: "<argv0>: Bad file descriptor\n"}, r)
	// -v is orcrt's (the stock would call it an invalid specifier type).
	r = runExec(t, bin, "-v")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "error: insufficient arguments")
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestListenAndUnix: the listen= (stock) and unix= (orcrt) modes accept one
// connection and serve a session over it; -v logs the traffic.
func TestListenAndUnix(t *testing.T) {
	for _, mode := range []string{"tcp", "unix"} {
		t.Run(mode, func(t *testing.T) {
			var spec, network, addr string
			if mode == "tcp" {
				port := freePort(t)
				spec, network, addr = fmt.Sprintf("listen=127.0.0.1:%d", port), "tcp", fmt.Sprintf("127.0.0.1:%d", port)
			} else {
				addr = filepath.Join(t.TempDir(), "s")
				spec, network = "unix="+addr, "unix"
			}
			cmd := crossexec.Command(bin, "-v", spec, "ignored", "args")
			var so, se bytes.Buffer
			cmd.Stdout, cmd.Stderr = &so, &se
			require.NoError(t, cmd.Start())
			var conn net.Conn
			var err error
			for i := 0; i < 200; i++ {
				if conn, err = net.Dial(network, addr); err == nil {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			require.NoError(t, err)
			ctl, err := wiretest.New(conn, nil)
			require.NoError(t, err)
			b, err := ctl.CallName(context.Background(), "__llvm_orc_bootstrap_mem_read_buffers_wrapper", make([]byte, 8))
			require.NoError(t, err)
			assert.Equal(t, make([]byte, 8), b)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			require.NoError(t, ctl.Finish(ctx))
			require.NoError(t, cmd.Wait(), se.String())
			assert.Empty(t, so.String())
			assert.Contains(t, se.String(), "msg=wire dir=send op=Setup")
		})
	}
}
