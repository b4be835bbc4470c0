//go:build linux

package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

const (
	llvmBin      = "/usr/lib/llvm-22/bin"
	orcRuntime   = "/usr/lib/llvm-22/lib/clang/22/lib/linux/liborc_rt-x86_64.a"
	gccLibDir    = "/usr/lib/gcc/x86_64-linux-gnu/12"
	runTimeout   = 120 * time.Second
	prSetSubreap = 36 // PR_SET_CHILD_SUBREAPER
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "wholerun:", err)
		os.Exit(1)
	}
}

// executor is one executor in the rotation.
type executor struct {
	name, path string
	env        []string // added to llvm-jitlink's environment (inherited by the executor)
}

type extraFlag []executor

func (e *extraFlag) String() string { return fmt.Sprint(*e) }

func (e *extraFlag) Set(v string) error {
	name, rest, ok := strings.Cut(v, "=")
	if !ok || name == "" || rest == "" || name == "orcrt" || name == "stock" {
		return fmt.Errorf("want NAME=PATH[,ENV=VALUE...] with a new NAME, got %q", v)
	}
	parts := strings.Split(rest, ",")
	*e = append(*e, executor{name: name, path: parts[0], env: parts[1:]})
	return nil
}

type config struct {
	n        int
	extra    extraFlag
	programs []string
	memmgrs  []string
	orcrt    string
	stock    string
	jitlink  string
	work     string
	root     string
}

func run() error {
	var c config
	var progs, mms string
	flag.IntVar(&c.n, "n", 10, "runs per executor, program and memory manager")
	flag.StringVar(&progs, "programs", "hello,fn2000,cxx,obj51", "programs to run")
	flag.StringVar(&mms, "memmgr", "default", "llvm-jitlink memory managers (default, shared, simple-remote), comma-separated")
	flag.StringVar(&c.orcrt, "orcrt", "", "orcrt-executor binary (default: go build it, with profiles/orcrt-executor.pgo if present)")
	flag.StringVar(&c.stock, "stock", llvmBin+"/llvm-jitlink-executor", "stock executor")
	flag.StringVar(&c.jitlink, "jitlink", llvmBin+"/llvm-jitlink", "llvm-jitlink")
	flag.StringVar(&c.work, "work", filepath.Join(os.TempDir(), "orcrt-wholerun"), "directory for generated sources and objects")
	flag.Var(&c.extra, "extra", "another executor for the rotation: NAME=PATH[,ENV=VALUE...] (repeatable)")
	flag.Parse()
	c.programs = strings.Split(progs, ",")
	c.memmgrs = strings.Split(mms, ",")
	if c.n < 1 {
		return errors.New("-n must be at least 1")
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetSubreap, 1, 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", errno)
	}
	var err error
	if c.root, err = moduleRoot(); err != nil {
		return err
	}
	if err := os.MkdirAll(c.work, 0o755); err != nil {
		return err
	}
	if c.orcrt == "" {
		c.orcrt = filepath.Join(c.work, "orcrt-executor")
		if err := buildExecutor(c.root, c.orcrt); err != nil {
			return err
		}
	}
	var cases []benchCase
	for _, name := range c.programs {
		p, err := prepare(&c, name)
		if err != nil {
			return fmt.Errorf("preparing %s: %w", name, err)
		}
		for _, mm := range c.memmgrs {
			bc := benchCase{prog: p, memmgr: mm}
			args, err := bc.args()
			if err != nil {
				return err
			}
			bc.argv = args
			cases = append(cases, bc)
		}
	}
	executors := append([]executor{{name: "orcrt", path: c.orcrt}, {name: "stock", path: c.stock}}, c.extra...)
	// Check every case once with each executor: the runs measure
	// programs that work, and the executors must agree.
	for i := range cases {
		bc := &cases[i]
		for _, ex := range executors {
			r, err := runOnce(c.jitlink, ex, bc.argv)
			if err != nil {
				return fmt.Errorf("%s with %s: %w", bc.name(), ex.name, err)
			}
			if r.exit != bc.prog.exit {
				return fmt.Errorf("%s with %s: exit %d, want %d\nstderr: %s", bc.name(), ex.name, r.exit, bc.prog.exit, r.stderr)
			}
		}
	}
	fmt.Printf("goos: linux\ngoarch: amd64\npkg: github.com/orcgo/orcrt/bench/cmd/wholerun\n")
	res := map[string]map[string][]result{} // case -> executor -> runs
	for i := 0; i < c.n; i++ {
		for _, bc := range cases {
			for _, ex := range executors {
				r, err := runOnce(c.jitlink, ex, bc.argv)
				if err != nil {
					return fmt.Errorf("%s with %s: %w", bc.name(), ex.name, err)
				}
				if r.exit != bc.prog.exit {
					return fmt.Errorf("%s with %s: exit %d, want %d", bc.name(), ex.name, r.exit, bc.prog.exit)
				}
				if res[bc.name()] == nil {
					res[bc.name()] = map[string][]result{}
				}
				res[bc.name()][ex.name] = append(res[bc.name()][ex.name], r)
				fmt.Printf("BenchmarkWholeRun/%s/executor=%s 1 %d ns/op %d peak-rss-KiB %.2f exec-cpu-ms\n",
					bc.name(), ex.name, r.wall.Nanoseconds(), r.rssKiB, float64(r.execCPU.Microseconds())/1000)
			}
		}
		fmt.Fprintf(os.Stderr, "wholerun: round %d/%d done\n", i+1, c.n)
	}
	for _, ex := range executors {
		if ex.name != "stock" {
			printTable(os.Stdout, ex.name, cases, res)
		}
	}
	return nil
}

// ---- programs ----

type program struct {
	name  string
	objs  []string // compiled objects
	flags []string // extra llvm-jitlink flags (before the objects)
	exit  int
}

type benchCase struct {
	prog   *program
	memmgr string
	argv   []string
}

func (bc benchCase) name() string { return "program=" + bc.prog.name + "/memmgr=" + bc.memmgr }

func (bc benchCase) args() ([]string, error) {
	var a []string
	switch bc.memmgr {
	case "default":
	case "shared", "simple-remote", "generic":
		a = append(a, "-use-memmgr="+bc.memmgr)
	default:
		return nil, fmt.Errorf("unknown memory manager %q", bc.memmgr)
	}
	a = append(a, bc.prog.flags...)
	return append(a, bc.prog.objs...), nil
}

func prepare(c *config, name string) (*program, error) {
	testdata := filepath.Join(c.root, "cmd", "orcrt-executor", "e2e", "testdata")
	switch name {
	case "hello":
		o, err := compile(c.work, filepath.Join(testdata, "hello.c"))
		return &program{name: name, objs: []string{o}, exit: 7}, err
	case "cxx":
		o, err := compile(c.work, filepath.Join(testdata, "cxx.cpp"))
		return &program{name: name, objs: []string{o}, exit: 16,
			flags: []string{"-orc-runtime=" + orcRuntime, "-L" + gccLibDir, "-lstdc++"}}, err
	case "fn2000":
		src, exit, err := genFn2000(c.work)
		if err != nil {
			return nil, err
		}
		o, err := compile(c.work, src)
		return &program{name: name, objs: []string{o}, exit: exit}, err
	case "obj51":
		srcs, exit, err := genObj51(c.work)
		if err != nil {
			return nil, err
		}
		p := &program{name: name, exit: exit}
		for _, s := range srcs {
			o, err := compile(c.work, s)
			if err != nil {
				return nil, err
			}
			p.objs = append(p.objs, o)
		}
		return p, nil
	}
	return nil, fmt.Errorf("unknown program %q (hello, fn2000, cxx, obj51)", name)
}

func compile(work, src string) (string, error) {
	cc := "clang-22"
	if strings.HasSuffix(src, ".cpp") {
		cc = "clang++-22"
	}
	out := filepath.Join(work, strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))+".o")
	cmd := exec.Command(cc, "-c", "-fPIC", "-O1", src, "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: %w\n%s", strings.Join(cmd.Args, " "), err, b)
	}
	return out, nil
}

// genFn2000 writes 2,000 functions that main calls in turn (noinline, so
// the object has 2,000 function symbols) and returns the exit status.
func genFn2000(work string) (string, int, error) {
	const n = 2000
	var b bytes.Buffer
	b.WriteString("/* generated by wholerun */\n")
	sum := 0
	for i := range n {
		fmt.Fprintf(&b, "__attribute__((noinline)) int f%d(int x) { return x * %d + %d; }\n", i, i%7+1, i%11)
	}
	b.WriteString("int main(void) {\n  unsigned s = 0;\n")
	for i := range n {
		fmt.Fprintf(&b, "  s += f%d(%d);\n", i, i%5)
		sum += (i%5)*(i%7+1) + i%11
	}
	b.WriteString("  return (int)(s % 101u);\n}\n")
	p := filepath.Join(work, "fn2000.c")
	return p, sum % 101, writeIfChanged(p, b.Bytes())
}

// genObj51 writes 51 C files: m00.c holds main, which calls g01; each
// gNN calls g(NN+1) and local helpers, and reads a string of its own file
// (data relocations across objects too); g50 ends the chain.
func genObj51(work string) ([]string, int, error) {
	const n = 51
	var srcs []string
	for i := range n {
		var b bytes.Buffer
		b.WriteString("/* generated by wholerun */\n")
		fmt.Fprintf(&b, "const char name%02d[] = \"object %02d\";\n", i, i)
		for h := range 8 {
			fmt.Fprintf(&b, "__attribute__((noinline)) static int h%02d_%d(int x) { return x + name%02d[%d]; }\n", i, h, i, h%9)
		}
		next := ""
		if i+1 < n {
			fmt.Fprintf(&b, "int g%02d(int);\n", i+1)
			next = fmt.Sprintf(" + g%02d(x + 1)", i+1)
		}
		fn := fmt.Sprintf("g%02d", i)
		if i == 0 {
			fn = "chain"
		}
		fmt.Fprintf(&b, "int %s(int x) {\n  int s = 0;\n", fn)
		for h := range 8 {
			fmt.Fprintf(&b, "  s += h%02d_%d(x);\n", i, h)
		}
		fmt.Fprintf(&b, "  return (s & 0xff)%s;\n}\n", next)
		if i == 0 {
			b.WriteString("int main(void) { return chain(0) % 97; }\n")
		}
		p := filepath.Join(work, fmt.Sprintf("m%02d.c", i))
		if err := writeIfChanged(p, b.Bytes()); err != nil {
			return nil, 0, err
		}
		srcs = append(srcs, p)
	}
	// The exit status: the same arithmetic in Go.
	total := 0
	for i := range n {
		name := fmt.Sprintf("object %02d", i)
		s := 0
		for h := range 8 {
			s += i + int(name[h%9]) // x = i along the chain
		}
		total += s & 0xff
	}
	return srcs, total % 97, nil
}

func writeIfChanged(p string, b []byte) error {
	if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, b) {
		return nil
	}
	return os.WriteFile(p, b, 0o644)
}

// ---- running ----

type result struct {
	exit    int
	wall    time.Duration // llvm-jitlink's start to its exit
	rssKiB  int64         // the executor's ru_maxrss
	execCPU time.Duration // the executor's user + system time
	stderr  string
}

// runOnce runs llvm-jitlink with the executor in its own process group
// and reaps every process of the group: llvm-jitlink, and the executor
// (reparented to us, the subreaper, when llvm-jitlink exits first).
func runOnce(jitlink string, ex executor, args []string) (result, error) {
	var r result
	outF, err := os.CreateTemp("", "wholerun-out-")
	if err != nil {
		return r, err
	}
	defer os.Remove(outF.Name())
	defer outF.Close()
	errF, err := os.CreateTemp("", "wholerun-err-")
	if err != nil {
		return r, err
	}
	defer os.Remove(errF.Name())
	defer errF.Close()

	cmd := exec.Command(jitlink, append([]string{"-oop-executor=" + ex.path}, args...)...)
	cmd.Stdout, cmd.Stderr = outF, errF
	cmd.Env = append(os.Environ(), ex.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return r, err
	}
	pid := cmd.Process.Pid
	defer func() { _ = cmd.Process.Release() }() // reaped below, not by os/exec
	timer := time.AfterFunc(runTimeout, func() { _ = syscall.Kill(-pid, syscall.SIGKILL) })
	defer timer.Stop()
	sawExecutor := false
	for {
		var ws syscall.WaitStatus
		var ru syscall.Rusage
		p, err := syscall.Wait4(-pid, &ws, 0, &ru)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if errors.Is(err, syscall.ECHILD) {
			break
		}
		if err != nil {
			return r, fmt.Errorf("wait4: %w", err)
		}
		if p == pid {
			r.wall = time.Since(start)
			r.exit = ws.ExitStatus()
			if ws.Signaled() {
				r.exit = 128 + int(ws.Signal())
			}
			continue
		}
		sawExecutor = true
		r.rssKiB = ru.Maxrss
		r.execCPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if !timer.Stop() {
		return r, fmt.Errorf("timed out after %v", runTimeout)
	}
	b, _ := os.ReadFile(errF.Name())
	r.stderr = string(b)
	if !sawExecutor {
		return r, errors.New("the executor was not reaped here (did llvm-jitlink wait for it?)")
	}
	return r, nil
}

// ---- build ----

func moduleRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(b))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run wholerun inside the orcrt module")
	}
	return filepath.Dir(mod), nil
}

func buildExecutor(root, out string) error {
	args := []string{"build", "-o", out}
	if pgo := filepath.Join(root, "profiles", "orcrt-executor.pgo"); fileExists(pgo) {
		args = append(args, "-pgo="+pgo)
	}
	cmd := exec.Command("go", append(args, "./cmd/orcrt-executor")...)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building orcrt-executor: %w\n%s", err, b)
	}
	return nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// ---- report ----

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// printTable compares executor name with stock, case by case.
func printTable(w io.Writer, name string, cases []benchCase, res map[string]map[string][]result) {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "case\t%[1]s ms\tstock ms\tratio of medians\tmedian run ratio\tmin..max run ratio\t%[1]s RSS KiB\tstock RSS KiB\tRSS ratio\t%[1]s exec CPU ms\tstock exec CPU ms\t\n", name)
	for _, bc := range cases {
		o, s := res[bc.name()][name], res[bc.name()]["stock"]
		var ow, sw, ratios, orss, srss, ocpu, scpu []float64
		for i := range min(len(o), len(s)) {
			ow = append(ow, float64(o[i].wall.Microseconds())/1000)
			sw = append(sw, float64(s[i].wall.Microseconds())/1000)
			ratios = append(ratios, float64(o[i].wall)/float64(s[i].wall))
			orss = append(orss, float64(o[i].rssKiB))
			srss = append(srss, float64(s[i].rssKiB))
			ocpu = append(ocpu, float64(o[i].execCPU.Microseconds())/1000)
			scpu = append(scpu, float64(s[i].execCPU.Microseconds())/1000)
		}
		if len(ratios) == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.3f\t%.3f\t%.2f..%.2f\t%.0f\t%.0f\t%.3f\t%.1f\t%.1f\t\n",
			bc.name(), median(ow), median(sw), median(ow)/median(sw), median(ratios),
			slices.Min(ratios), slices.Max(ratios),
			median(orss), median(srss), median(orss)/median(srss), median(ocpu), median(scpu))
	}
	_ = tw.Flush()
}
