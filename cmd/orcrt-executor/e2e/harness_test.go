//go:build linux

package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/orcgo/orcrt/internal/llvmtools"
)

const (
	llvmBin     = "/usr/lib/llvm-22/bin"
	caseTimeout = 90 * time.Second

	prSetChildSubreaper = 36 // PR_SET_CHILD_SUBREAPER from <linux/prctl.h>
)

// The target's stock executor, ORC runtime and libstdc++ directory
// (setupTarget changes them for aarch64; see target_test.go).
var (
	stockExecutor = llvmBin + "/llvm-jitlink-executor"
	orcRuntime    = "/usr/lib/llvm-22/lib/clang/22/lib/linux/liborc_rt-x86_64.a"
	gccLibDir     = "/usr/lib/gcc/x86_64-linux-gnu/12"
)

// toolchain is one LLVM release as Debian installs it (llvm-N, clang-N,
// libclang-rt-N-dev).
type toolchain struct {
	major       int
	primary     bool // LLVM 22: the suite's own expectations are binding
	jitlink     string
	stock       string // the release's llvm-jitlink-executor
	cc, cxx, ar string
	orcRuntime  string // "" if the release ships none
	missing     string // why the release cannot run, or ""
}

// releases are the LLVM releases the suite runs, newest (primary) first.
var releases = []int{22, 19, 16, 15, 14}

// primary is LLVM 22's toolchain, the target's (see setupTarget).
var primary *toolchain

// toolchains returns the toolchain of every release; those not installed
// carry the reason in missing (a failure under ORCRT_REQUIRE_LLVM=1, as
// for 22, except on an emulated target, which only 22 serves).
func toolchains() []*toolchain {
	tcs := []*toolchain{primary}
	for _, n := range releases[1:] {
		bin := fmt.Sprintf("/usr/lib/llvm-%d/bin", n)
		tc := &toolchain{major: n, jitlink: bin + "/llvm-jitlink", stock: bin + "/llvm-jitlink-executor",
			cc: fmt.Sprintf("clang-%d", n), cxx: fmt.Sprintf("clang++-%d", n), ar: bin + "/llvm-ar"}
		if rt, _ := filepath.Glob(fmt.Sprintf("/usr/lib/llvm-%d/lib/clang/*/lib/linux/liborc_rt-x86_64.a", n)); len(rt) > 0 {
			tc.orcRuntime = rt[0]
		}
		switch {
		case emuRoot != "":
			tc.missing = "only LLVM 22 runs on an emulated target"
		default:
			for _, tool := range []string{tc.jitlink, tc.stock, tc.cc, tc.cxx} {
				if _, err := exec.LookPath(tool); err != nil {
					tc.missing = fmt.Sprintf("%s not found (install Debian's llvm-%d clang-%d; .ci/deps.sh does it)", tool, n, n)
					break
				}
			}
		}
		tcs = append(tcs, tc)
	}
	return tcs
}

var (
	orcrtExecutor string // path of the orcrt-executor under test
	objDir        string // compiled test objects, shared by all cases
	llvmMissing   string // why the suite cannot run, or ""
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	if runtime.GOARCH != "amd64" {
		// Cross-built (the unit tests under QEMU): the suite drives the
		// host's llvm-jitlink from an amd64 test binary, also for arm64
		// executors (ORCRT_E2E_TARGET=aarch64); requireLLVM skips.
		return m.Run()
	}
	if err := setupTarget(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	// Become a child subreaper so that executors orphaned by llvm-jitlink
	// (which never waits for its child) are reparented to us and can be
	// reaped and checked (see reapGroup).
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		fmt.Fprintln(os.Stderr, "e2e: prctl(PR_SET_CHILD_SUBREAPER):", errno)
		return 1
	}
	primary = &toolchain{major: 22, primary: true, jitlink: llvmBin + "/llvm-jitlink", stock: stockExecutor,
		cc: "clang-22", cxx: "clang++-22", ar: llvmBin + "/llvm-ar", orcRuntime: orcRuntime}
	if llvmtools.Required() {
		for _, tc := range toolchains()[1:] {
			if tc.missing != "" && emuRoot == "" {
				fmt.Fprintln(os.Stderr, "e2e:", llvmtools.RequireEnv+"=1 but", tc.missing)
				return 1
			}
		}
	}
	for _, tool := range append([]string{primary.jitlink, stockExecutor, "clang-22", "clang++-22", orcRuntime}, targetTools()...) {
		if _, err := exec.LookPath(tool); err != nil {
			if _, serr := os.Stat(tool); serr != nil {
				llvmMissing = fmt.Sprintf("%s not found (install Debian's llvm-22 clang-22 libclang-rt-22-dev; .ci/deps.sh does it)", tool)
				break
			}
		}
	}
	if llvmMissing != "" {
		if llvmtools.Required() {
			fmt.Fprintln(os.Stderr, "e2e:", llvmtools.RequireEnv+"=1 but", llvmMissing)
			return 1
		}
		return m.Run() // every test skips with the reason
	}
	tmp, err := os.MkdirTemp("", "orcrt-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	objDir = filepath.Join(tmp, "obj")
	if err := os.Mkdir(objDir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	orcrtExecutor = os.Getenv("ORCRT_E2E_EXECUTOR")
	if orcrtExecutor == "" {
		orcrtExecutor = filepath.Join(tmp, "orcrt-executor")
		args := []string{"build", "-o", orcrtExecutor}
		// The PGO profile the Makefile's executor target uses (profiles/pgo.sh).
		if pgo, err := filepath.Abs("../../../profiles/orcrt-executor.pgo"); err == nil {
			if _, err := os.Stat(pgo); err == nil {
				args = append(args, "-pgo="+pgo)
			}
		}
		build := exec.Command("go", append(args, "github.com/orcgo/orcrt/cmd/orcrt-executor")...)
		build.Env = targetBuildEnv()
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: building orcrt-executor:", err)
			return 1
		}
	}
	if err := wrapExecutors(tmp); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	primary.stock = stockExecutor
	return m.Run()
}

func requireLLVM(t testing.TB) {
	t.Helper()
	if llvmMissing != "" {
		t.Skip(llvmMissing)
	}
	if runtime.GOARCH != "amd64" {
		t.Skip("the e2e suite drives the host's x86-64 llvm-jitlink from an amd64 test binary; for arm64 executors run it there with ORCRT_E2E_TARGET=aarch64 (make arm64-e2e)")
	}
}

// compiled caches objects by source set and flags, so cases share them.
var compiled sync.Map // key -> *compileResult

type compileResult struct {
	once sync.Once
	path string
	err  error
}

// compile builds one object (or, for several sources, a static archive)
// from testdata sources with the toolchain's clang and returns its path.
func (tc *toolchain) compile(t testing.TB, flags []string, srcs ...string) string {
	t.Helper()
	key := fmt.Sprintf("%d|%s|%s", tc.major, strings.Join(flags, " "), strings.Join(srcs, ","))
	v, _ := compiled.LoadOrStore(key, &compileResult{})
	r := v.(*compileResult)
	r.once.Do(func() {
		sum := sha256.Sum256([]byte(key))
		base := hex.EncodeToString(sum[:6])
		if len(srcs) > 1 {
			// A static archive of the sources.
			var objs []string
			for _, s := range srcs {
				objs = append(objs, tc.compile(t, flags, s))
			}
			r.path = filepath.Join(objDir, base+".a")
			r.err = run(exec.Command(tc.ar, append([]string{"rcs", r.path}, objs...)...))
			return
		}
		src := srcs[0]
		if !filepath.IsAbs(src) {
			src = filepath.Join("testdata", src)
		}
		cc := tc.cc
		if strings.HasSuffix(src, ".cpp") {
			cc = tc.cxx
		}
		r.path = filepath.Join(objDir, base+"-"+strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))+".o")
		args := append(append([]string{"-c", "-fPIC"}, targetCFlags...), flags...)
		args = append(args, src, "-o", r.path)
		r.err = run(exec.Command(cc, args...))
	})
	if r.err != nil {
		t.Fatalf("compiling %v with %s: %v", srcs, tc.cc, r.err)
	}
	return r.path
}

// sharedLib builds a testdata C source into a shared library
// (lib<name>.so, in its own directory of objDir) and returns its path.
func sharedLib(t testing.TB, name, src string) string {
	t.Helper()
	key := "shared|" + name + "|" + src
	v, _ := compiled.LoadOrStore(key, &compileResult{})
	r := v.(*compileResult)
	r.once.Do(func() {
		dir := filepath.Join(objDir, "lib-"+name+"-"+itoa(len(src)))
		if r.err = os.MkdirAll(dir, 0o755); r.err != nil {
			return
		}
		r.path = filepath.Join(dir, "lib"+name+".so")
		r.err = run(exec.Command("clang-22", append(append([]string{}, targetCFlags...), "-shared", "-fPIC", "-O1", "-o", r.path, filepath.Join("testdata", src))...))
	})
	if r.err != nil {
		t.Fatalf("building lib%s.so: %v", name, r.err)
	}
	return r.path
}

func run(cmd *exec.Cmd) error {
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	return nil
}

// outcome is what one run of llvm-jitlink with one executor produced.
type outcome struct {
	exit   int
	stdout string
	stderr string
	// executorOut/Err are the executor's own streams in TCP mode (in pipe
	// mode the executor inherits llvm-jitlink's).
	executorOut string
	executorErr string
	// executorExit is the executor's own exit status in pipe mode
	// (128+signal if it died by a signal; -1 if it was not seen).
	executorExit int
}

func (o outcome) String() string {
	return fmt.Sprintf("exit=%d\n--- stdout:\n%s--- stderr:\n%s--- executor stdout:\n%s--- executor stderr:\n%s",
		o.exit, o.stdout, o.stderr, o.executorOut, o.executorErr)
}

// runJITLink runs llvm-jitlink in pipe mode with the given executor.
func runJITLink(t testing.TB, tc *toolchain, executor string, env []string, args []string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, tc.jitlink, append([]string{"-oop-executor=" + executor}, args...)...)
	return finish(t, ctx, cmd, env)
}

// runJITLinkTCP starts executor listening on a loopback port and connects
// llvm-jitlink to it. With the stock executor it preloads the shutdown
// shim (see testdata/tcp_shutdown_shim.c) so the session can end;
// orcrt-executor must end it without one (simpleremote.WatchPeerClose).
//
// A controller that could not connect at all (seen once under QEMU, with
// the stock executor listening: "Failed to connect TCP socket ...:
// Transport endpoint is not connected") leaves the executor waiting for
// its one connection: the harness ends that executor and runs the case
// once more on a fresh port.
func runJITLinkTCP(t testing.TB, tc *toolchain, executor string, env []string, args []string) outcome {
	t.Helper()
	o, connected := runJITLinkTCPOnce(t, tc, executor, env, args)
	if !connected {
		t.Logf("llvm-jitlink never connected to %s; running the case again:\n%s", executor, o)
		o, _ = runJITLinkTCPOnce(t, tc, executor, env, args)
	}
	return o
}

// connectFailed is how llvm-jitlink reports that it could not connect.
const connectFailed = "Failed to connect TCP socket"

func runJITLinkTCPOnce(t testing.TB, tc *toolchain, executor string, env []string, args []string) (o outcome, connected bool) {
	t.Helper()
	var preload []string
	if executor != orcrtExecutor {
		preload = []string{"LD_PRELOAD=" + buildShim(t)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	port := freePort(t)
	exe := exec.CommandContext(ctx, executor, fmt.Sprintf("listen=127.0.0.1:%d", port))
	var exeOut, exeErr bytes.Buffer
	exe.Stdout, exe.Stderr = &exeOut, &exeErr
	exe.Env = append(os.Environ(), env...)
	exe.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	exe.Cancel = func() error { return syscall.Kill(-exe.Process.Pid, syscall.SIGKILL) }
	if err := exe.Start(); err != nil {
		t.Fatalf("starting %s: %v", executor, err)
	}
	if err := waitListening(ctx, port); err != nil {
		_ = exe.Cancel()
		_ = exe.Wait()
		t.Fatalf("%s never listened on port %d: %v\nstderr: %s", executor, port, err, exeErr.String())
	}
	cmd := exec.CommandContext(ctx, tc.jitlink, append([]string{fmt.Sprintf("-oop-executor-connect=127.0.0.1:%d", port)}, args...)...)
	o = finish(t, ctx, cmd, append(env, preload...))
	if strings.Contains(o.stderr, connectFailed) {
		_ = exe.Cancel()
		_ = exe.Wait()
		return o, false
	}
	waitErr := exe.Wait()
	if ctx.Err() != nil {
		t.Fatalf("TCP session with %s did not end within %v (hang)\n%s", executor, caseTimeout, o)
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) {
		t.Fatalf("waiting for %s: %v", executor, waitErr)
	}
	o.executorOut, o.executorErr = exeOut.String(), exeErr.String()
	// The executor is our child here, not in llvm-jitlink's group.
	o.executorExit = exe.ProcessState.ExitCode()
	if ws, ok := exe.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		o.executorExit = 128 + int(ws.Signal())
	}
	return o, true
}

// reapGroup waits for the processes left in llvm-jitlink's process group
// (its executor child, reparented to us because the test binary is a child
// subreaper) and returns the last exit status seen. An executor that does
// not exit within a few seconds of llvm-jitlink is a hang: it is killed and
// the test fails.
func reapGroup(t testing.TB, pgid int) int {
	t.Helper()
	status := -1
	deadline := time.Now().Add(10 * time.Second)
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.ECHILD):
			return status
		case err != nil && !errors.Is(err, syscall.EINTR):
			t.Fatalf("wait4: %v", err)
		case pid > 0:
			if ws.Signaled() {
				status = 128 + int(ws.Signal())
			} else {
				status = ws.ExitStatus()
			}
			continue
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			t.Errorf("executor still running 10s after llvm-jitlink exited (hang)")
			deadline = time.Now().Add(time.Hour)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func finish(t testing.TB, ctx context.Context, cmd *exec.Cmd, env []string) outcome {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), env...)
	// Own process group, so a hung executor child dies with llvm-jitlink.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish within %v (hang)\nstdout: %s\nstderr: %s",
			strings.Join(cmd.Args, " "), caseTimeout, stdout.String(), stderr.String())
	}
	o := outcome{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		o.exit = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			o.exit = 128 + int(ws.Signal())
		}
	default:
		t.Fatalf("running %s: %v", strings.Join(cmd.Args, " "), err)
	}
	o.executorExit = reapGroup(t, cmd.Process.Pid)
	return o
}

var shimOnce struct {
	sync.Once
	path string
	err  error
}

func buildShim(t testing.TB) string {
	shimOnce.Do(func() {
		shimOnce.path = filepath.Join(objDir, "tcp_shutdown_shim.so")
		shimOnce.err = run(exec.Command("clang-22", "-shared", "-fPIC", "-O1", "-o", shimOnce.path,
			filepath.Join("testdata", "tcp_shutdown_shim.c"), "-ldl"))
	})
	if shimOnce.err != nil {
		t.Fatal(shimOnce.err)
	}
	return shimOnce.path
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitListening polls /proc/net/tcp until a socket listens on port. It
// never connects: the executor accepts exactly one connection.
func waitListening(ctx context.Context, port int) error {
	want := fmt.Sprintf(":%04X ", port)
	for {
		data, err := os.ReadFile("/proc/net/tcp")
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if len(f) > 3 && strings.HasSuffix(f[1]+" ", want) && f[3] == "0A" {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// normalize makes runs with different executors comparable: executor paths
// become <executor>, and process ids <pid>.
func normalize(s string, executors ...string) string {
	for _, e := range executors {
		s = strings.ReplaceAll(s, e, "<executor>")
	}
	return pidRef.ReplaceAllString(s, "${1}<pid>")
}

// pidRef is a process id as tools print one: "pid 123", "PID=123",
// "[123]", "jit-123.dump".
var pidRef = regexp.MustCompile(`((?i:pid)[ =:]*|\[|jit-)[0-9]+\b`)

// normalizeFailure is what a failure is compared by: the first line of
// the controller's stderr, with orcrt-executor's own one-line diagnostics
// (which the stock executor does not print) left out, and the executors'
// paths and names, process ids and addresses normalised.
func normalizeFailure(stderr string, executors ...string) string {
	s := normalize(dropExecutorDiagnostics(stderr), executors...)
	for _, e := range executors {
		s = strings.ReplaceAll(s, filepath.Base(e), "<executor>")
	}
	return firstLine(hexAddr.ReplaceAllString(s, "0x..."))
}

var (
	hexAddr = regexp.MustCompile(`0x[0-9a-fA-F]{8,}`)
	// teardownNoise are the lines llvm-jitlink 14-19 print, or not, as
	// the executor's end of the session races their own teardown: with
	// the stock executor alone they come and go from run to run.
	teardownNoise = regexp.MustCompile(`(?m)^.*(llvm-jitlink error: FD-transport disconnected|` +
		`Resource tracker 0x[0-9a-fA-F.]+ became defunct|JITDylib \S+ is defunct|: disconnecting)\n`)
)

// normalizeController makes what the controller prints comparable
// between runs: addresses in its messages (ASLR) become 0x..., and with
// releases before 22 the teardown lines are dropped.
func (tc *toolchain) normalizeController(s string) string {
	s = hexAddr.ReplaceAllString(s, "0x...")
	if !tc.primary {
		s = teardownNoise.ReplaceAllString(s, "")
	}
	return s
}

// dropExecutorDiagnostics removes orcrt-executor's own one-line
// diagnostics ("orcrt-executor: ...") that the stock executor does not print
// (for example the fatal-signal note when JIT'd code crashes).
func dropExecutorDiagnostics(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(line, "orcrt-executor: ") {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }
