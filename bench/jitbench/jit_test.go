//go:build linux && cgo

package jitbench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/internal/cmem"
	"github.com/orcgo/orcrt/internal/jittest"
	"github.com/orcgo/orcrt/jit"
)

// cSource is the 20-line C function of kind=c.
const cSource = `#include <stdint.h>

static int64_t mix(int64_t h, int64_t v) {
  h ^= v;
  h *= 0x100000001b3;
  return h;
}

int64_t score(int64_t x) {
  int64_t h = 0xcbf29ce484222325;
  for (int i = 0; i < 8; i++) {
    int64_t digit = (x >> (8 * i)) & 0xff;
    if (digit == 0)
      continue;
    h = mix(h, digit);
    if (h < 0)
      h = -h;
  }
  return h % 1000;
}
`

// inputs holds the benchmark's files: the C source, its object and IR,
// and the 1,000-function object.
type inputs struct {
	dir                       string
	c, obj, ir, obj1000       string
	objBytes, irBytes, o1000B []byte
}

func prepare(b *testing.B) *inputs {
	b.Helper()
	in := &inputs{dir: b.TempDir()}
	in.c = filepath.Join(in.dir, "score.c")
	in.obj = filepath.Join(in.dir, "score.o")
	in.ir = filepath.Join(in.dir, "score.ll")
	in.obj1000 = filepath.Join(in.dir, "f1000.o")
	write(b, in.c, cSource)
	run(b, "clang-22", "-c", "-fPIC", "-O2", in.c, "-o", in.obj)
	run(b, "clang-22", "-S", "-emit-llvm", "-fPIC", "-O2", in.c, "-o", in.ir)
	var big strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&big, "long f%d(long x) { return x * %d + %d; }\n", i, i+1, i)
	}
	c1000 := filepath.Join(in.dir, "f1000.c")
	write(b, c1000, big.String())
	run(b, "clang-22", "-c", "-fPIC", "-O2", c1000, "-o", in.obj1000)
	in.objBytes, in.irBytes, in.o1000B = read(b, in.obj), read(b, in.ir), read(b, in.obj1000)
	return in
}

func BenchmarkJIT(b *testing.B) {
	ctl := jittest.Controller(b)
	inproc := jittest.Program(b, "csrc/inproc.cpp")
	in := prepare(b)
	for _, kind := range []string{"ir", "object", "c"} {
		for _, impl := range []string{"orcrt-jit", "orcrt-jit-orcrt", "orcrt-jit-clang-process", "lljit-inprocess", "llvm-jitlink-spawn"} {
			if impl == "llvm-jitlink-spawn" && kind != "object" || impl == "orcrt-jit-clang-process" && kind != "c" {
				continue
			}
			b.Run("op=add-lookup/kind="+kind+"/impl="+impl, func(b *testing.B) {
				switch impl {
				case "lljit-inprocess":
					benchInproc(b, inproc, kind, in)
				case "llvm-jitlink-spawn":
					for b.Loop() {
						run(b, "/usr/lib/llvm-22/bin/llvm-jitlink", "-noexec", "-entry=score", in.obj)
					}
				default:
					benchOurs(b, ctl, impl, kind, in)
				}
			})
		}
	}
	// A cache hit: the same C or IR again, linked from the object the
	// first add compiled; its reference is AddObject of that object.
	for _, kind := range []string{"c", "ir"} {
		b.Run("op=add-lookup/kind="+kind+"-cached/impl=orcrt-jit", func(b *testing.B) {
			j := startJIT(b, ctl, true, true)
			data := map[string][]byte{"ir": in.irBytes}[kind]
			addLookupRemove(b, j, kind, data, cSource, "score", -1) // fills the cache
			for i := 0; b.Loop(); i++ {
				addLookupRemove(b, j, kind, data, cSource, "score", -1)
			}
			if st := j.CacheStats(); st.Hits < int64(b.N) {
				b.Fatalf("%d cache hits in %d adds", st.Hits, b.N)
			}
		})
	}
	// 8 goroutines adding IR at once, beside the same adds one at a time
	// (kind=ir above): ns/op is the wall time per add.
	b.Run("op=add-lookup/kind=ir/impl=orcrt-jit-8goroutines", func(b *testing.B) {
		j := startJIT(b, ctl, true)
		addLookupRemove(b, j, "ir", in.irBytes, "", "score", -1)
		var next atomic.Int64
		b.SetParallelism(4) // GOMAXPROCS 2: 8 goroutines
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				i := int(next.Add(1))
				m, err := j.AddIR(context.Background(), "m"+strconv.Itoa(i), in.irBytes)
				if err == nil {
					_, err = m.Lookup(context.Background(), "score")
				}
				if err == nil {
					err = m.Remove(context.Background())
				}
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("op=add-lookup/kind=object1000/impl=orcrt-jit", func(b *testing.B) {
		j := startJIT(b, ctl, true)
		for i := 0; b.Loop(); i++ {
			addLookupRemove(b, j, "object", in.o1000B, "", "f999", i)
		}
		b.ReportMetric(float64(kiB(fmt.Sprintf("/proc/%d/status", j.ControllerPID()), "VmHWM:")), "peak-rss-KiB")
	})
}

// startJIT starts a JIT without the compile cache unless cache is set.
// BenchmarkJITRequest: an empty request, Go to the controller and back
// (jit.Ping), beside LLVM's own C++ controller calling orcrt-executor
// (cppdriver's call=empty); and a JIT's start until it takes its first
// add, beside creating an LLJIT in a C++ process.
func BenchmarkJITRequest(b *testing.B) {
	ctl := jittest.Controller(b)
	b.Run("op=empty/impl=orcrt-jit", func(b *testing.B) {
		j := startJIT(b, ctl, true)
		for b.Loop() {
			if err := j.Ping(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=start/impl=orcrt-jit", func(b *testing.B) {
		for b.Loop() {
			j, err := jit.Start(context.Background(), jit.Options{Controller: ctl, NoORCRuntime: true, NoCache: true})
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if err := j.Close(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	})
	b.Run("op=start/impl=lljit-inprocess", func(b *testing.B) {
		runInproc(b, jittest.Program(b, "csrc/inproc.cpp"), "start", strconv.Itoa(b.N))
	})
}

func startJIT(b *testing.B, ctl string, noRuntime bool, cache ...bool) *jit.JIT {
	b.Helper()
	opts := jit.Options{Controller: ctl, NoORCRuntime: noRuntime, NoCache: len(cache) == 0 || !cache[0]}
	if !opts.NoCache {
		opts.CacheDir = b.TempDir()
	}
	j, err := jit.Start(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = j.Close() })
	return j
}

// clangProcess compiles src with a clang-22 process, as the controller
// compiles it with clang's libraries: the alternative AddC measured.
func clangProcess(b *testing.B, src string) []byte {
	cmd := exec.Command("clang-22", "-c", "-fPIC", "-O2", "-x", "c", "-o", "-", "-")
	cmd.Stdin = strings.NewReader(src)
	obj, err := cmd.Output()
	if err != nil {
		b.Fatal(err)
	}
	return obj
}

func benchOurs(b *testing.B, ctl string, impl, kind string, in *inputs) {
	j := startJIT(b, ctl, impl != "orcrt-jit-orcrt")
	if impl == "orcrt-jit-clang-process" {
		kind = "c-clang-process"
	}
	data := map[string][]byte{"ir": in.irBytes, "object": in.objBytes}[kind]
	addLookupRemove(b, j, kind, data, cSource, "score", -1) // warm-up, as inproc's
	for i := 0; b.Loop(); i++ {
		addLookupRemove(b, j, kind, data, cSource, "score", i)
	}
}

// addLookupRemove makes sym callable and removes its module untimed.
func addLookupRemove(b *testing.B, j *jit.JIT, kind string, data []byte, src, sym string, i int) {
	ctx := context.Background()
	name := "m" + strconv.Itoa(i)
	var m *jit.Module
	var err error
	switch kind {
	case "ir":
		m, err = j.AddIR(ctx, name, data)
	case "object":
		m, err = j.AddObject(ctx, name, data)
	case "c":
		m, err = j.AddC(ctx, name, src)
	case "c-clang-process":
		m, err = j.AddObject(ctx, name, clangProcess(b, src))
	}
	if err != nil {
		b.Fatal(err)
	}
	if _, err := m.Lookup(ctx, sym); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if err := m.Remove(ctx); err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
}

// benchInproc runs b.N operations in csrc/inproc.cpp and reports its
// mean as ns/op.
func benchInproc(b *testing.B, prog, kind string, in *inputs) {
	file := map[string]string{"ir": in.ir, "object": in.obj, "c": in.c}[kind]
	runInproc(b, prog, kind, file, "score", strconv.Itoa(b.N))
}

// runInproc runs csrc/inproc.cpp with args and reports the mean it
// prints as ns/op.
func runInproc(b *testing.B, prog string, args ...string) {
	out, err := exec.Command(prog, args...).CombinedOutput()
	if err != nil {
		b.Fatalf("%s: %v\n%s", prog, err, out)
	}
	ns, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "ns/op ")
	v, err := strconv.ParseFloat(ns, 64)
	if !ok || err != nil {
		b.Fatalf("%s printed %q", prog, out)
	}
	b.ReportMetric(v, "ns/op")
}

// BenchmarkJITCall calls a JIT'd int64_t inc(int64_t) at each call tier
// (package call), beside the same C function compiled into the binary and
// called through cgo (the reference of every tier's target), and an empty
// cgo call:
//   - jit-held: CallHeld inside Func.Batch at TierCgo (today's path for
//     any function);
//   - jit-held-system-stack, jit-held-go-stack: the same at the faster
//     tiers the controller's facts allow for a leaf;
//   - jit-call: one pinned Call at the fastest tier (the token's atomic
//     pair included);
//   - jit-slice-cgo: CallSlice at TierCgo over 1,024 values, per value.
func BenchmarkJITCall(b *testing.B) {
	var inc call.Func
	parent := b
	fn := func(b *testing.B, tier call.Tier) call.Func1[int64, int64] {
		if inc.Addr() == 0 {
			j := startJIT(parent, jittest.Controller(parent), true)
			m, err := j.AddC(context.Background(), "inc", "long inc(long x) { return x + 1; }")
			if err != nil {
				b.Fatal(err)
			}
			fs, err := m.Lookup(context.Background(), "inc")
			if err != nil {
				b.Fatal(err)
			}
			inc = fs[0]
		}
		f, err := inc.AtTier(tier)
		if err != nil {
			b.Fatal(err)
		}
		return call.Typed1[int64, int64](f)
	}
	held := func(tier call.Tier) func(b *testing.B) {
		return func(b *testing.B) {
			f := fn(b, tier)
			if err := f.Func().Batch(func() {
				x := int64(0)
				for b.Loop() {
					x = f.CallHeld(x)
				}
			}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("impl=jit-held", held(call.TierCgo))
	b.Run("impl=jit-held-system-stack", held(call.TierSystemStack))
	b.Run("impl=jit-held-go-stack", held(call.TierGoStack))
	b.Run("impl=jit-call", func(b *testing.B) {
		f := fn(b, call.TierGoStack)
		x := int64(0)
		for b.Loop() {
			x, _ = f.Call(x)
		}
	})
	b.Run("impl=jit-slice-cgo", func(b *testing.B) {
		f := fn(b, call.TierCgo)
		in, out := make([]int64, 1024), make([]int64, 1024)
		b.ResetTimer()
		for i := 0; i < b.N; i += len(in) {
			if err := f.CallSlice(out, in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=cgo-same-function", func(b *testing.B) {
		x := int64(0)
		for b.Loop() {
			x = cgoInc(x)
		}
	})
	b.Run("impl=cgo-empty", func(b *testing.B) {
		for b.Loop() {
			cmem.CallEmpty()
		}
	})
}

// BenchmarkJITFilter runs examples/jitfilter's predicate over 1,000,000
// values (one op), reported per value too: the JIT'd function at its
// fastest tier (CallHeld inside Batch), the same over a slice at TierCgo
// (CallSlice), and the same predicate written in Go.
func BenchmarkJITFilter(b *testing.B) {
	const n = 1_000_000
	j := startJIT(b, jittest.Controller(b), true)
	m, err := j.AddC(context.Background(), "filter.c", "#include <stdint.h>\nint64_t filter(int64_t x) { return x % 7 == 3 && x > 1000; }\n")
	if err != nil {
		b.Fatal(err)
	}
	fs, err := m.Lookup(context.Background(), "filter")
	if err != nil {
		b.Fatal(err)
	}
	filter := call.Typed1[int64, int64](fs[0])
	in, out := make([]int64, n), make([]int64, n)
	for i := range in {
		in[i] = int64(i)
	}
	perValue := func(b *testing.B, run func() int64) {
		var passed int64
		for b.Loop() {
			passed = run()
		}
		if passed != 142714 {
			b.Fatalf("%d pass", passed)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/value")
	}
	b.Run("impl=jit-fastest", func(b *testing.B) {
		b.Logf("tier %s", fs[0].Tier())
		perValue(b, func() (p int64) {
			_ = fs[0].Batch(func() {
				for x := range int64(n) {
					p += filter.CallHeld(x)
				}
			})
			return p
		})
	})
	b.Run("impl=jit-slice-cgo", func(b *testing.B) {
		f, err := fs[0].AtTier(call.TierCgo)
		if err != nil {
			b.Fatal(err)
		}
		slice := call.Typed1[int64, int64](f)
		perValue(b, func() (p int64) {
			if err := slice.CallSlice(out, in); err != nil {
				b.Fatal(err)
			}
			for _, v := range out {
				p += v
			}
			return p
		})
	})
	b.Run("impl=go", func(b *testing.B) {
		perValue(b, func() (p int64) {
			for x := range int64(n) {
				p += goFilter(x)
			}
			return p
		})
	})
}

// goFilter is the filter's predicate in Go (BenchmarkJITFilter).
//
//go:noinline
func goFilter(x int64) int64 {
	if x%7 == 3 && x > 1000 {
		return 1
	}
	return 0
}

// BenchmarkJITFootprint reports the memory of the controller and its
// compile workers: idle (after Start and one small compile, so that a
// worker runs), per module with 200 small C modules loaded, and after
// 1,000 adds and removes of such a module (what a long-running host that
// swaps rules keeps). Proportional set sizes, summed over the processes,
// count the libraries they share once; the idle resident set sizes,
// summed, count them in each. One op is the whole sequence.
func BenchmarkJITFootprint(b *testing.B) {
	ctl := jittest.Controller(b)
	ctx := context.Background()
	var idle, idleRSS, perModule, churned int
	for b.Loop() {
		j := startJIT(b, ctl, true)
		pid := j.ControllerPID()
		m, err := j.AddC(ctx, "warm", cSource)
		if err == nil {
			err = m.Remove(ctx)
		}
		if err != nil {
			b.Fatal(err)
		}
		idle, idleRSS = treeKiB(pid, "Pss:"), treeKiB(pid, "Rss:")
		var ms []*jit.Module
		for i := range 200 {
			m, err := j.AddC(ctx, "m"+strconv.Itoa(i), cSource, "-Dscore=score"+strconv.Itoa(i))
			if err != nil {
				b.Fatal(err)
			}
			ms = append(ms, m)
		}
		perModule = (treeKiB(pid, "Pss:") - idle) / len(ms)
		for _, m := range ms {
			if err := m.Remove(ctx); err != nil {
				b.Fatal(err)
			}
		}
		for i := range 1000 {
			m, err := j.AddIR(ctx, "churn"+strconv.Itoa(i), prepareIR(b))
			if err == nil {
				err = m.Remove(ctx)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		churned = treeKiB(pid, "Pss:")
		if err := j.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(idle), "idle-pss-KiB")
	b.ReportMetric(float64(idleRSS), "idle-rss-KiB")
	b.ReportMetric(float64(perModule), "pss-per-module-KiB")
	b.ReportMetric(float64(churned), "pss-after-1000-KiB")
}

// treeKiB sums a KiB field of /proc/PID/smaps_rollup over process pid
// and its children (a controller's compile workers).
func treeKiB(pid int, field string) int {
	total := kiB(fmt.Sprintf("/proc/%d/smaps_rollup", pid), field)
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		children, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
		for _, c := range strings.Fields(string(children)) {
			total += kiB("/proc/"+c+"/smaps_rollup", field)
		}
	}
	return total
}

// prepareIR returns a small IR function, made once.
var prepareIR = func() func(b *testing.B) []byte {
	ir := []byte("define i64 @f(i64 %x) {\n  %r = mul i64 %x, 3\n  ret i64 %r\n}\n")
	return func(*testing.B) []byte { return ir }
}()

// kiB reads a "Field: N kB" line of a /proc file (0 once the process is
// gone).
func kiB(path, field string) int {
	st, _ := os.ReadFile(path)
	for line := range strings.Lines(string(st)) {
		if v, ok := strings.CutPrefix(line, field); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}

func write(b *testing.B, path, s string) {
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		b.Fatal(err)
	}
}

func read(b *testing.B, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func run(b *testing.B, name string, args ...string) {
	var out bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.Bytes())
	}
}

// BenchmarkHostSize reports the size and peak RSS of a Go host of package
// jit (examples/jitfilter, filtering 1,000,000 numbers) beside those of a
// Go program linking LLVM 22's ORC statically (testdata/staticllvm,
// creating an LLJIT). Set ORCRT_BENCH_HOSTSIZE=1: linking LLVM takes a
// while.
func BenchmarkHostSize(b *testing.B) {
	if os.Getenv("ORCRT_BENCH_HOSTSIZE") == "" {
		b.Skip("set ORCRT_BENCH_HOSTSIZE=1")
	}
	dir := b.TempDir()
	host, static := filepath.Join(dir, "jitfilter"), filepath.Join(dir, "staticllvm")
	run(b, "go", "build", "-o", host, "../../examples/jitfilter")
	lc := "/usr/lib/llvm-22/bin/llvm-config"
	flag := func(args ...string) string {
		out, err := exec.Command(lc, args...).Output()
		if err != nil {
			b.Fatalf("%s %v: %v", lc, args, err)
		}
		// Debian ships libzstd.so.1 without the -dev symlink.
		return strings.ReplaceAll(strings.TrimSpace(string(out)), "-lzstd", "-l:libzstd.so.1")
	}
	build := exec.Command("go", "build", "-o", static, "./testdata/staticllvm")
	build.Env = append(os.Environ(), "CGO_CFLAGS=-I"+flag("--includedir"),
		"CGO_LDFLAGS=-L"+flag("--libdir")+" "+flag("--link-static", "--libs", "orcjit", "native")+" "+
			flag("--link-static", "--system-libs")+" -lstdc++")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building staticllvm: %v\n%s", err, out)
	}
	ctl := jittest.Controller(b)
	for _, p := range []struct{ name, path string }{{"impl=orcrt-jit-host", host}, {"impl=static-libllvm", static}} {
		b.Run(p.name, func(b *testing.B) {
			st, err := os.Stat(p.path)
			if err != nil {
				b.Fatal(err)
			}
			rss := 0
			for b.Loop() {
				rss = max(rss, runWatchingRSS(b, p.path, jit.ControllerEnv+"="+ctl))
			}
			b.ReportMetric(float64(st.Size()), "binary-bytes")
			b.ReportMetric(float64(rss), "peak-rss-KiB")
		})
	}
}

// runWatchingRSS runs the host and returns its own peak RSS, read from
// /proc while it runs: the rusage of a waited process also counts the
// children it waited for (clang).
func runWatchingRSS(b *testing.B, path, env string) int {
	cmd := exec.Command(path, "x % 7 == 3")
	cmd.Env = append(os.Environ(), env)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	peak := 0
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				b.Fatalf("%s: %v\n%s", path, err, out.Bytes())
			}
			return peak
		case <-tick.C:
			peak = max(peak, kiB(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid), "VmHWM:"))
		}
	}
}
