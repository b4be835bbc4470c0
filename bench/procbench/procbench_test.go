//go:build linux

package procbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orcgo/orcrt/alloc"
	"github.com/orcgo/orcrt/internal/crossexec"
	"github.com/orcgo/orcrt/internal/llvmtools"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/service/memaccess"
	"github.com/orcgo/orcrt/sps"
)

const (
	stockExecutor = "/usr/lib/llvm-22/bin/llvm-jitlink-executor"
	replySize     = 32 // a Result header with an empty payload
	childEnv      = "ORCRT_PROCBENCH_CHILD"
)

var (
	orcrtExecutor string // built by TestMain or named by ORCRT_PROCBENCH_EXECUTOR
	stockMissing  string // why the stock cases skip, or ""
)

func TestMain(m *testing.M) {
	if size := os.Getenv(childEnv); size != "" {
		os.Exit(pingPongChild(size))
	}
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	if _, err := os.Stat(stockExecutor); err != nil {
		stockMissing = stockExecutor + " not installed (Debian's llvm-22)"
		if llvmtools.Required() {
			fmt.Fprintln(os.Stderr, "procbench:", llvmtools.RequireEnv+"=1 but", stockMissing)
			return 1
		}
	}
	orcrtExecutor = os.Getenv("ORCRT_PROCBENCH_EXECUTOR")
	if orcrtExecutor == "" {
		tmp, err := os.MkdirTemp("", "orcrt-procbench-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "procbench:", err)
			return 1
		}
		defer os.RemoveAll(tmp)
		orcrtExecutor = filepath.Join(tmp, "orcrt-executor")
		if err := buildExecutor(orcrtExecutor); err != nil {
			fmt.Fprintln(os.Stderr, "procbench: building orcrt-executor:", err)
			return 1
		}
	}
	return m.Run()
}

// buildExecutor builds cmd/orcrt-executor, with the module's PGO profile
// when there is one.
func buildExecutor(out string) error {
	args := []string{"build", "-o", out}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	if pgo := filepath.Join(root, "profiles", "orcrt-executor.pgo"); fileExists(pgo) {
		args = append(args, "-pgo="+pgo)
	}
	cmd := exec.Command("go", append(args, "github.com/orcgo/orcrt/cmd/orcrt-executor")...)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %w\n%s", cmd.Args, err, b)
	}
	return nil
}

func moduleRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := string(b)
	for len(mod) > 0 && (mod[len(mod)-1] == '\n' || mod[len(mod)-1] == '\r') {
		mod = mod[:len(mod)-1]
	}
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the orcrt module")
	}
	return filepath.Dir(mod), nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// executors are the two executors every round trip runs against.
var executors = []string{"orcrt", "stock"}

func executorPath(tb testing.TB, name string) string {
	tb.Helper()
	if name == "stock" {
		if stockMissing != "" {
			tb.Skip(stockMissing)
		}
		return stockExecutor
	}
	return orcrtExecutor
}

// session is a started executor with the addresses the workloads use.
type session struct {
	*wiretest.Executor
	ctx                              context.Context
	writeU8s, writeBufs              sps.Addr
	mm, reserveFn, initFn, releaseFn sps.Addr
}

func start(tb testing.TB, name string) *session {
	tb.Helper()
	var opts wiretest.ExecOptions
	if env := os.Getenv("ORCRT_PROCBENCH_EXECUTOR_ENV"); env != "" && name == "orcrt" {
		opts.Env = strings.Fields(env)
	}
	e, err := wiretest.StartExecutor(executorPath(tb, name), &opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := e.Finish(ctx); err != nil {
			tb.Errorf("%s: finishing the session: %v", name, err)
		}
		st, err := e.WaitTimeout(10 * time.Second)
		if err != nil || st.Code != 0 {
			tb.Errorf("%s: %v, %v; stderr: %s", name, st, err, e.Stderr())
		}
	})
	return &session{
		Executor:  e,
		ctx:       context.Background(),
		writeU8s:  e.MustSymbol(memaccess.WriteUInt8sName),
		writeBufs: e.MustSymbol(memaccess.WriteBuffersName),
		mm:        e.MustSymbol(alloc.MemoryManagerInstanceName),
		reserveFn: e.MustSymbol(alloc.MemoryManagerReserveName),
		initFn:    e.MustSymbol(alloc.MemoryManagerInitializeName),
		releaseFn: e.MustSymbol(alloc.MemoryManagerReleaseName),
	}
}

func (s *session) reserveMem(size uint64) (sps.Addr, error) {
	r, err := wiretest.Call2(s.ctx, s.Controller, s.reserveFn, sps.MemoryManagerReserve, s.mm, size)
	if err != nil {
		return 0, err
	}
	if r.Err != nil {
		return 0, fmt.Errorf("reserve: %w", r.Err)
	}
	return r.Value, nil
}

func (s *session) releaseMem(base sps.Addr) error {
	r, err := wiretest.Call2(s.ctx, s.Controller, s.releaseFn, sps.MemoryManagerRelease, s.mm, []sps.Addr{base})
	if err != nil {
		return err
	}
	if r != nil {
		return fmt.Errorf("release: %w", r)
	}
	return nil
}

// workload is one benchmarked call. prepare runs once per session and
// returns op, which performs one benchmark operation.
type workload struct {
	name    string
	bytes   int64
	prepare func(tb testing.TB, s *session) func() error
}

var workloads = []workload{
	{"empty", 0, prepareEmpty},
	{"write1MiB", 1 << 20, prepareWrite1MiB},
	{"alloc-cycle", 0, prepareAllocCycle},
}

// prepareEmpty: mem_write_uint8s with an empty sequence; the result is
// empty (SPSEmpty).
func prepareEmpty(_ testing.TB, s *session) func() error {
	args := sps.WriteUInt8s.AppendArgs(nil, nil)
	return func() error {
		r, err := s.Call(s.ctx, s.writeU8s, args)
		if err != nil {
			return err
		}
		if len(r) != 0 {
			return fmt.Errorf("write_uint8s: %d result bytes, want 0", len(r))
		}
		return nil
	}
}

// prepareWrite1MiB: mem_write_buffers of 1 MiB into reserved memory.
func prepareWrite1MiB(tb testing.TB, s *session) func() error {
	const n = 1 << 20
	base, err := s.reserveMem(n)
	if err != nil {
		tb.Fatal(err)
	}
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(i * 7)
	}
	args := sps.WriteBuffers.AppendArgs(nil, []sps.BufferWrite{{Addr: base, Data: data}})
	return func() error {
		r, err := s.Call(s.ctx, s.writeBufs, args)
		if err != nil {
			return err
		}
		if len(r) != 0 {
			return fmt.Errorf("write_buffers: %d result bytes, want 0", len(r))
		}
		return nil
	}
}

// Segments of the alloc cycle: 16 KiB RX, 8 KiB R, 8 KiB RW.
var cycleSegs = []struct {
	group sps.AllocGroup
	off   uint64
	size  uint64
}{
	{sps.Read | sps.Exec, 0, 16 << 10},
	{sps.Read, 16 << 10, 8 << 10},
	{sps.Read | sps.Write, 24 << 10, 8 << 10},
}

const cycleSize = 32 << 10

// prepareAllocCycle: reserve 32 KiB, initialize the three segments with
// all their content, release.
func prepareAllocCycle(_ testing.TB, s *session) func() error {
	content := make([][]byte, len(cycleSegs))
	for i, sg := range cycleSegs {
		content[i] = make([]byte, sg.size)
		for j := range content[i] {
			content[i][j] = byte(i*13 + j)
		}
	}
	fr := sps.FinalizeRequest{Segments: make([]sps.SegFinalizeRequest, len(cycleSegs))}
	var args []byte
	return func() error {
		base, err := s.reserveMem(cycleSize)
		if err != nil {
			return err
		}
		for i, sg := range cycleSegs {
			fr.Segments[i] = sps.SegFinalizeRequest{Group: sg.group, Addr: base + sps.Addr(sg.off), Size: sg.size, Content: content[i]}
		}
		args = sps.MemoryManagerInitialize.AppendArgs(args[:0], s.mm, fr)
		b, err := s.Call(s.ctx, s.initFn, args)
		if err != nil {
			return err
		}
		r, err := sps.MemoryManagerInitialize.DecodeResult(b)
		if err != nil {
			return fmt.Errorf("initialize: result %x: %w", b, err)
		}
		if r.Err != nil {
			return fmt.Errorf("initialize: %w", r.Err)
		}
		return s.releaseMem(base)
	}
}

// BenchmarkRoundTrip: one call per op (three for alloc-cycle) from the
// wiretest controller to an executor process over pipes.
func BenchmarkRoundTrip(b *testing.B) {
	for _, w := range workloads {
		for _, ex := range executors {
			b.Run("transport=pipe/call="+w.name+"/executor="+ex, func(b *testing.B) {
				s := start(b, ex)
				op := w.prepare(b, s)
				if err := op(); err != nil { // warm up: first-touch costs out of the loop
					b.Fatal(err)
				}
				b.SetBytes(w.bytes)
				b.ReportAllocs()
				for b.Loop() {
					if err := op(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestWorkloads runs every workload a few times against both executors:
// the benchmarks measure calls that succeed.
func TestWorkloads(t *testing.T) {
	for _, w := range workloads {
		for _, ex := range executors {
			t.Run(w.name+"/"+ex, func(t *testing.T) {
				s := start(t, ex)
				op := w.prepare(t, s)
				for range 3 {
					if err := op(); err != nil {
						t.Fatal(err)
					}
				}
			})
		}
	}
}

var sizes = []struct {
	name string
	n    int
	pipe int // request pipe capacity to set (0: the default 64 KiB)
}{{"32B", 32, 0}, {"1MiB", 1 << 20, 0}, {"1MiB-pipe1MiB", 1 << 20, 1 << 20}}

// BenchmarkPipePingPong is the floor of BenchmarkRoundTrip: size bytes to
// a child process, 32 bytes back, over two OS pipes.
func BenchmarkPipePingPong(b *testing.B) {
	for _, sz := range sizes {
		b.Run("size="+sz.name, func(b *testing.B) {
			p := startPingPong(b, sz.n, sz.pipe)
			req := make([]byte, sz.n)
			rep := make([]byte, replySize)
			if err := p.roundTrip(req, rep); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(sz.n))
			b.ReportAllocs()
			for b.Loop() {
				if err := p.roundTrip(req, rep); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestPingPong(t *testing.T) {
	for _, sz := range sizes {
		p := startPingPong(t, sz.n, sz.pipe)
		req := make([]byte, sz.n)
		rep := make([]byte, replySize)
		for range 3 {
			if err := p.roundTrip(req, rep); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// pingPong is the parent end: w carries requests, r answers.
type pingPong struct {
	w io.Writer
	r io.Reader
}

func (p *pingPong) roundTrip(req, rep []byte) error {
	if _, err := p.w.Write(req); err != nil {
		return err
	}
	_, err := io.ReadFull(p.r, rep)
	return err
}

// startPingPong starts the child: this test binary with childEnv=n, the
// request pipe's read end as descriptor 3 and the answer pipe's write end
// as descriptor 4 (blocking, as exec hands them over). Our ends are the
// ones os.Pipe makes (non-blocking, in the runtime poller), as
// wiretest.StartExecutor's are. pipeSize > 0 sets the request pipe's
// capacity (F_SETPIPE_SZ), as orcrt-executor does with its input pipe.
func startPingPong(tb testing.TB, n, pipeSize int) *pingPong {
	tb.Helper()
	reqR, reqW, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	if pipeSize > 0 {
		const fSetPipeSz = 1031
		if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, reqR.Fd(), fSetPipeSz, uintptr(pipeSize)); e != 0 {
			tb.Skipf("F_SETPIPE_SZ %d: %v", pipeSize, e)
		}
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := crossexec.Command(os.Args[0]) // via QEMU under the arm64 job
	cmd.Env = append(os.Environ(), childEnv+"="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	cmd.ExtraFiles = []*os.File{reqR, repW}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	_, _ = reqR.Close(), repW.Close()
	tb.Cleanup(func() {
		_ = reqW.Close() // the child sees end-of-file and exits
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				tb.Errorf("ping-pong child: %v", err)
			}
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			tb.Errorf("ping-pong child did not exit")
		}
		_ = repR.Close()
	})
	return &pingPong{w: reqW, r: repR}
}

// pingPongChild is the child's loop: read size bytes from descriptor 3,
// answer 32 bytes on descriptor 4, until end-of-file. Plain blocking
// system calls on one locked thread: the cheapest peer there is.
func pingPongChild(size string) int {
	runtime.LockOSThread()
	n, err := strconv.Atoi(size)
	if err != nil || n <= 0 {
		fmt.Fprintln(os.Stderr, "procbench child: bad size", size)
		return 2
	}
	in, out := os.NewFile(3, "req"), os.NewFile(4, "rep")
	req := make([]byte, n)
	rep := make([]byte, replySize)
	for {
		if _, err := io.ReadFull(in, req); err != nil {
			if errors.Is(err, io.EOF) {
				return 0
			}
			fmt.Fprintln(os.Stderr, "procbench child:", err)
			return 1
		}
		if _, err := out.Write(rep); err != nil {
			fmt.Fprintln(os.Stderr, "procbench child:", err)
			return 1
		}
	}
}

// BenchmarkSession is the fixed cost of a session. op=start-setup: start
// the executor process and receive its Setup (what llvm-jitlink waits for
// before it can do anything); op=start-setup-exit: that, then end the
// session as llvm-jitlink does (close our output, wait for end-of-file)
// and reap the process.
func BenchmarkSession(b *testing.B) {
	for _, op := range []string{"start-setup", "start-setup-exit"} {
		for _, ex := range executors {
			b.Run("op="+op+"/executor="+ex, func(b *testing.B) {
				path := executorPath(b, ex)
				b.ReportAllocs()
				for b.Loop() {
					e, err := wiretest.StartExecutor(path, nil)
					if err != nil {
						b.Fatal(err)
					}
					if op == "start-setup" {
						b.StopTimer()
					}
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					err = e.Finish(ctx)
					cancel()
					if err != nil {
						b.Fatal(err)
					}
					if st, err := e.WaitTimeout(10 * time.Second); err != nil || st.Code != 0 {
						b.Fatalf("%v, %v: %s", st, err, e.Stderr())
					}
					if op == "start-setup" {
						b.StartTimer()
					}
				}
			})
		}
	}
}
