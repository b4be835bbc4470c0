//go:build linux

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// served is a running `orcrt-executor serve` listening on a Unix socket
// and a loopback TCP port, with a status socket and per-session output
// files.
type served struct {
	cmd               *exec.Cmd
	dir, sock, status string
	out, logPath      string
	port              int
	done              chan struct{}
	waitErr           error
	stopOnce          sync.Once
	stopDur           time.Duration
}

// startServe starts serve in dir with flags added to the defaults.
func startServe(t *testing.T, dir string, flags ...string) *served {
	t.Helper()
	s := &served{dir: dir, sock: filepath.Join(dir, "serve.sock"), status: filepath.Join(dir, "status.sock"),
		out: filepath.Join(dir, "out"), logPath: filepath.Join(dir, "server.log"), port: freePort(t), done: make(chan struct{})}
	logf, err := os.Create(s.logPath)
	require.NoError(t, err)
	defer logf.Close()
	args := append([]string{"serve", "-status=" + s.status, "-output=" + s.out}, flags...)
	args = append(args, "unix="+s.sock, fmt.Sprintf("listen=127.0.0.1:%d", s.port))
	s.cmd = exec.Command(orcrtExecutor, args...)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	require.NoError(t, s.cmd.Start())
	go func() { s.waitErr = s.cmd.Wait(); close(s.done) }()
	t.Cleanup(func() { s.stop(t, 60*time.Second) })
	deadline := time.Now().Add(20 * time.Second)
	for {
		if c, err := net.Dial("unix", s.status); err == nil {
			c.Close()
			break
		}
		select {
		case <-s.done:
			t.Fatalf("serve exited at start: %v\n%s", s.waitErr, s.log(t))
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve never answered on its status socket\n%s", s.log(t))
		}
	}
	return s
}

// stop sends SIGTERM and waits at most within for serve to drain and
// exit (then kills it and fails); it returns how long the drain took.
func (s *served) stop(t *testing.T, within time.Duration) time.Duration {
	t.Helper()
	s.stopOnce.Do(func() {
		start := time.Now()
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(within):
			_ = s.cmd.Process.Kill()
			<-s.done
			t.Errorf("serve did not exit within %v of SIGTERM\n%s", within, s.log(t))
		}
		s.stopDur = time.Since(start)
		if s.waitErr != nil {
			t.Errorf("serve exited with %v\n%s", s.waitErr, s.log(t))
		}
	})
	return s.stopDur
}

func (s *served) log(t *testing.T) string {
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// statusText is what `orcrt-executor status` prints.
func (s *served) statusText(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(orcrtExecutor, "status", s.status).CombinedOutput()
	require.NoError(t, err, "orcrt-executor status: %s", out)
	return string(out)
}

// waitStatus polls the status until it contains want.
func (s *served) waitStatus(t *testing.T, want string, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		st := s.statusText(t)
		if strings.Contains(st, want) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("status never showed %q:\n%s", want, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sessionLine is one session's log line.
type sessionLine map[string]string

var logField = regexp.MustCompile(`(\w+)=("(?:[^"\\]|\\.)*"|\S*)`)

// sessions parses serve's session log lines.
func (s *served) sessions(t *testing.T) []sessionLine {
	var out []sessionLine
	for _, line := range strings.Split(s.log(t), "\n") {
		if !strings.Contains(line, " msg=session ") {
			continue
		}
		sl := sessionLine{}
		for _, m := range logField.FindAllStringSubmatch(line, -1) {
			v := m[2]
			if uq, err := strconv.Unquote(v); err == nil {
				v = uq
			}
			sl[m[1]] = v
		}
		out = append(out, sl)
	}
	return out
}

// sessionOutput returns a session's stdout and stderr files.
func (s *served) sessionOutput(t *testing.T, id string) (stdout, stderr string) {
	o, err := os.ReadFile(filepath.Join(s.out, "session-"+id+".stdout"))
	require.NoError(t, err)
	e, err := os.ReadFile(filepath.Join(s.out, "session-"+id+".stderr"))
	require.NoError(t, err)
	return string(o), string(e)
}

// requireServe skips where serve cannot be tested.
func requireServe(t *testing.T) {
	t.Helper()
	requireLLVM(t)
	if emuRoot != "" {
		t.Skip("serve is tested on the host only")
	}
}

// sortedLines is s's non-empty lines, sorted.
func sortedLines(s string) []string {
	var ls []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			ls = append(ls, l)
		}
	}
	slices.Sort(ls)
	return ls
}

// TestServeJITLink: 64 llvm-jitlink 22 clients, 8 at a time, connect to
// one serve, each running a real C program (one of them crashes); every
// exit status, the program's stdout, and the stderr lines (the
// controller's and the program's) are those of the same run with the
// stock executor in pipe mode, and the crash ends only its own session.
func TestServeJITLink(t *testing.T) {
	requireServe(t)
	type prog struct {
		src  string
		args bool // takes the client's own arguments
	}
	progs := []prog{{"hello.c", true}, {"args.c", true}, {"exit.c", false}, {"stdio.c", false}, {"fp.c", false},
		{"data.c", false}, {"recurse.c", false}, {"fnptr.c", false}, {"threads.c", false}, {"multig.c", false}}
	const clients, parallel, crasher = 64, 8, 13
	type client struct {
		args        []string
		stock, ours outcome
		pid         int
	}
	cs := make([]*client, clients)
	for i := range cs {
		p := progs[i%len(progs)]
		src := p.src
		if i == crasher {
			src = "segv.c"
		}
		args := []string{primary.compile(t, []string{"-O1"}, src)}
		if p.args && i != crasher {
			args = append(args, "-args", fmt.Sprintf("client-%d", i), "x")
		}
		cs[i] = &client{args: args}
	}
	s := startServe(t, t.TempDir(), "-pool=4")
	runAll := func(f func(c *client)) {
		sem := make(chan struct{}, parallel)
		var wg sync.WaitGroup
		for _, c := range cs {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				f(c)
			}()
		}
		wg.Wait()
	}
	runAll(func(c *client) {
		ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, primary.jitlink, append([]string{fmt.Sprintf("-oop-executor-connect=127.0.0.1:%d", s.port)}, c.args...)...)
		c.ours = finish(t, ctx, cmd, nil)
		c.pid = cmd.Process.Pid
	})
	runAll(func(c *client) { c.stock = runJITLink(t, primary, stockExecutor, nil, c.args) })
	s.stop(t, 30*time.Second)

	byPID := map[int]sessionLine{}
	for _, sl := range s.sessions(t) {
		pid, _ := strconv.Atoi(sl["pid"])
		byPID[pid] = sl
	}
	require.Len(t, byPID, clients, "one session per client\n%s", s.log(t))
	for i, c := range cs {
		sl := byPID[c.pid]
		if !assert.NotNil(t, sl, "client %d (pid %d) has no session line", i, c.pid) {
			continue
		}
		out, errOut := s.sessionOutput(t, sl["id"])
		what := fmt.Sprintf("client %d (%s), session %s", i, filepath.Base(c.args[0]), sl["id"])
		assert.Equal(t, c.stock.exit, c.ours.exit, "%s: exit status\nstock:\n%s\nserve:\n%s", what, c.stock, c.ours)
		assert.Equal(t, c.stock.stdout, out, "%s: the program's stdout", what)
		assert.Empty(t, c.ours.stdout, "%s: llvm-jitlink's own stdout", what)
		assert.Equal(t, sortedLines(c.stock.stderr), sortedLines(dropExecutorDiagnostics(errOut)+c.ours.stderr),
			"%s: stderr lines (the program's and llvm-jitlink's)", what)
		switch {
		case i == crasher:
			assert.Equal(t, "crashed", sl["reason"], what)
			assert.Equal(t, "signal: segmentation fault", sl["exit"], what)
		case strings.HasSuffix(c.args[0], "-exit.o"):
			assert.Equal(t, "exited", sl["reason"], what)
		default:
			assert.Equal(t, "ended", sl["reason"], what)
		}
		assert.Equal(t, "LLVM 22", sl["dialect"], what)
		assert.Equal(t, "tcp", sl["network"], what)
	}
}

// TestServeClangRepl: clang-repl 22 through serve. clang-repl 22 takes
// --oop-executor-connect but never connects (strace shows no socket or
// connect call) and fails with the stock executor as with orcrt ("No
// LLJITBuilder for out-of-process JIT"): with that message and no session
// seen by serve, the test says so and skips until a clang-repl connects.
func TestServeClangRepl(t *testing.T) {
	requireServe(t)
	if _, err := exec.LookPath(clangRepl); err != nil {
		t.Skipf("%s not found", clangRepl)
	}
	s := startServe(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	tc := replCases[0]
	cmd := exec.CommandContext(ctx, clangRepl, fmt.Sprintf("--oop-executor-connect=127.0.0.1:%d", s.port), "--orc-runtime="+orcRuntime)
	cmd.Stdin = strings.NewReader(strings.Join(append(tc.inputs, "%quit"), "\n") + "\n")
	o := finish(t, ctx, cmd, nil)
	s.stop(t, 30*time.Second)
	if strings.Contains(o.stderr, "No LLJITBuilder for out-of-process JIT") && len(s.sessions(t)) == 0 {
		t.Skipf("clang-repl 22 never connected (serve saw no session; it fails so with the stock executor too): %s", firstLine(o.stderr))
	}
	require.Equal(t, 0, o.exit, "%s", o)
	ss := s.sessions(t)
	require.Len(t, ss, 1)
	out, _ := s.sessionOutput(t, ss[0]["id"])
	assert.Equal(t, strings.Join(tc.want, ""), out)
}

const serveTestUser = "orcrt-serve-test"

// testUser returns the uid and gid of a user other than the serving one,
// created (useradd) if missing; it skips unless the test runs as root.
func testUser(t *testing.T) (uid, gid int) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the peer tests connect as another user: they need root (to create the user and run as it)")
	}
	u, err := user.Lookup(serveTestUser)
	if err != nil {
		out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", serveTestUser).CombinedOutput()
		require.NoError(t, err, "useradd %s: %s", serveTestUser, out)
		u, err = user.Lookup(serveTestUser)
		require.NoError(t, err)
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid
}

// publicDir is a directory every user may enter (t.TempDir's is 0700).
func publicDir(t *testing.T) string {
	d, err := os.MkdirTemp("", "orcrt-serve-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(d, 0o755))
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// TestServePeers: a peer of another uid is refused, on the Unix socket
// and on loopback TCP (one log line each, the connection closed with
// nothing sent), while the serving uid gets Setup; -allow-uid admits it.
func TestServePeers(t *testing.T) {
	requireServe(t)
	uid, gid := testUser(t)
	dir := publicDir(t)
	dial := filepath.Join(dir, "serve_dial")
	require.NoError(t, run(exec.Command("clang-22", "-O1", "-o", dial, filepath.Join("testdata", "serve_dial.c"))))
	as := func(cred *syscall.Credential, args ...string) string {
		cmd := exec.Command(dial, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return strings.TrimSpace(string(out))
	}
	other := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	for _, allow := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "allow-uid"}[allow], func(t *testing.T) {
			var flags []string
			if allow {
				flags = append(flags, "-allow-uid="+serveTestUser)
			}
			s := startServe(t, publicDir(t), flags...)
			port := strconv.Itoa(s.port)
			for _, args := range [][]string{{"unix", s.sock}, {"tcp", "127.0.0.1", port}} {
				assert.Regexp(t, `^setup \d+$`, as(nil, args...), "serving uid over %s", args[0])
				if allow {
					assert.Regexp(t, `^setup \d+$`, as(other, args...), "allowed uid %d over %s", uid, args[0])
				} else {
					assert.Equal(t, "closed", as(other, args...), "uid %d over %s", uid, args[0])
				}
			}
			st := s.statusText(t)
			s.stop(t, 30*time.Second)
			log := s.log(t)
			refusals := regexp.MustCompile(`(?m)^.*msg=refused .*$`).FindAllString(log, -1)
			if allow {
				assert.Empty(t, refusals)
				assert.Contains(t, st, "refused total=0")
				return
			}
			require.Len(t, refusals, 2, log)
			for i, network := range []string{"unix", "tcp"} {
				assert.Contains(t, refusals[i], fmt.Sprintf("%s peer uid %d", network, uid))
				assert.Contains(t, refusals[i], "uid="+strconv.Itoa(uid))
			}
			assert.Contains(t, st, "refused total=2 uid=2")
			assert.Len(t, s.sessions(t), 2, "the serving uid's sessions")
		})
	}
}

// TestServeDrain: SIGTERM with 8 sessions live, 4 ending within the
// drain deadline and 4 not: serve exits by the deadline (plus the
// kill's slack), the 4 short ones end normally, the rest are killed, and
// no worker process is left.
func TestServeDrain(t *testing.T) {
	requireServe(t)
	const deadline = 5 * time.Second
	s := startServe(t, t.TempDir(), "-pool=2", "-drain-timeout="+deadline.String())
	obj := primary.compile(t, []string{"-O1"}, "serve_sleep.c")
	type result struct {
		o   outcome
		end time.Time
	}
	results := make([]result, 8)
	var wg sync.WaitGroup
	for i := range results {
		secs := "3"
		if i%2 == 1 {
			secs = "60"
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, primary.jitlink, fmt.Sprintf("-oop-executor-connect=127.0.0.1:%d", s.port), obj, "-args", secs)
			results[i].o = finish(t, ctx, cmd, nil)
			results[i].end = time.Now()
		}()
	}
	st := s.waitStatus(t, "sessions active=8 ", 30*time.Second)
	workers := regexp.MustCompile(`worker=(\d+)`).FindAllStringSubmatch(st, -1)
	require.Len(t, workers, 8, st)
	took := s.stop(t, deadline+10*time.Second)
	wg.Wait()
	assert.Less(t, took, deadline+2*time.Second, "serve's drain")
	for _, w := range workers {
		pid, _ := strconv.Atoi(w[1])
		assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "worker %d still exists", pid)
	}
	assert.Empty(t, serveWorkers(t), "worker processes left")
	reasons := map[string]int{}
	for _, sl := range s.sessions(t) {
		reasons[sl["reason"]]++
	}
	assert.Equal(t, map[string]int{"ended": 4, "killed at the drain deadline": 4}, reasons, s.log(t))
	for i, r := range results {
		if i%2 == 0 {
			assert.Equal(t, 0, r.o.exit, "short client %d\n%s", i, r.o)
		} else {
			assert.NotEqual(t, 0, r.o.exit, "killed client %d\n%s", i, r.o)
		}
	}
}

// serveWorkers lists the pids of serve workers of the executor under
// test still running.
func serveWorkers(t *testing.T) []int {
	var pids []int
	ents, err := os.ReadDir("/proc")
	require.NoError(t, err)
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cl, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.HasPrefix(cl, []byte(orcrtExecutor+"\x00__orcrt-serve-worker")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestServeLeaks: many short sessions (1,000; 100 with -short) through
// one serve, each a controller that reads Setup and hangs up: the
// server's descriptors and mappings do not grow. It logs connect →
// Setup as the controller sees it.
func TestServeLeaks(t *testing.T) {
	requireServe(t)
	n := 1000
	if testing.Short() {
		n = 100
	}
	s := startServe(t, t.TempDir(), "-pool=4")
	pid := s.cmd.Process.Pid
	count := func() (fds, maps int) {
		ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		require.NoError(t, err)
		m, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
		require.NoError(t, err)
		return len(ents), bytes.Count(m, []byte("\n"))
	}
	settle := func() (fds, maps int) {
		s.waitStatus(t, "pool idle=4 starting=0", 30*time.Second)
		s.waitStatus(t, "sessions active=0 waiting=0", 30*time.Second)
		return count()
	}
	var mu sync.Mutex
	var took []time.Duration
	session := func() error {
		start := time.Now()
		c, err := net.Dial("unix", s.sock)
		if err != nil {
			return err
		}
		defer c.Close()
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		var hdr [32]byte
		if _, err := c.Read(hdr[:1]); err != nil {
			return fmt.Errorf("reading Setup: %w", err)
		}
		d := time.Since(start)
		mu.Lock()
		took = append(took, d)
		mu.Unlock()
		return nil
	}
	batch := func(k int) {
		sem := make(chan struct{}, 4)
		errs := make(chan error, k)
		for range k {
			sem <- struct{}{}
			go func() {
				defer func() { <-sem }()
				if err := session(); err != nil {
					errs <- err
				}
			}()
		}
		for range cap(sem) {
			sem <- struct{}{}
		}
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	}
	// Warm up: the server's heap and goroutine stacks grow to their
	// working size (a few mappings) in the first sessions.
	warm := n / 4
	batch(warm)
	fds0, maps0 := settle()
	batch(n / 2)
	_, mapsHalf := settle()
	batch(n - n/2)
	fds1, maps1 := settle()
	t.Logf("after %d, %d and %d more sessions: server fds %d, %d; mappings %d, %d, %d", warm, n/2, n-n/2, fds0, fds1, maps0, mapsHalf, maps1)
	assert.Equal(t, fds0, fds1, "the server's descriptors")
	// The Go heap and stacks still add a few mappings as they grow (0-8
	// seen in the first 500 sessions, 0-2 in the next 500); a mapping
	// per session would be hundreds.
	assert.LessOrEqual(t, maps1-maps0, max(n/50, 8), "the server's mappings")
	assert.LessOrEqual(t, maps1-mapsHalf, max(n/100, 4), "the server's mappings, second half")
	slices.Sort(took)
	// Back to back, the pool runs dry: mostly how fast workers start.
	t.Logf("connect → first Setup byte, %d sessions back to back, 4 at a time: median %v, p90 %v", len(took), took[len(took)/2], took[len(took)*9/10])
	s.stop(t, 30*time.Second)
	ended := 0
	for _, sl := range s.sessions(t) {
		if sl["reason"] != "" {
			ended++
		}
	}
	assert.Equal(t, n+warm, ended, "session lines")
	assert.Empty(t, serveWorkers(t), "worker processes left")
}
