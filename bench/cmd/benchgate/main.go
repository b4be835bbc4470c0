package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/perf/benchmath"

	"github.com/orcgo/orcrt/bench/internal/benchdata"
)

type pkgSpec struct {
	dir, bench string
	allocsOnly bool // ns/op reported, not gated (kind allocs)
}

type config struct {
	base           string
	setFile        string // the gated set (bench/gate.txt)
	threshold      float64
	instrThreshold float64
	alpha          float64
	count          int
	confirm        int // rounds of the second run that must agree with a time failure
	benchtime      string
	cpu            string
	out            string
	pkgs           []pkgSpec   // time and allocs entries
	instr          []gateEntry // instr entries
	exes           []string    // main packages the benchmarks build and run
	inputs         []string    // files the benchmarks read (a PGO profile)
	instrBaseline  string      // stored instruction baseline of the host's entries
	arm64Baseline  string      // stored instruction baseline of the :arm64 entries
	qemuPlugin     string      // the qemuinsn plugin (bench/qemuinsn) arm64 entries are counted with
	arm64Root      string      // the arm64 sysroot qemu-aarch64 runs them in (.ci/arm64-deps.sh)
	record         bool        // record the baselines instead of gating
	recordArch     string      // with record: only this arch's baseline ("amd64" for the host's, "arm64")
	measureOut     string      // measure instr entries into this file instead of gating
	reason         string
	// compareIdentical runs and judges packages whose base and head
	// builds are byte-identical (calibration); by default they are not
	// compared, as any difference would be noise.
	compareIdentical bool
	// allocsOnlyKeys holds the benchmarks (pkg:Name) run by allocs
	// entries, filled as their output arrives.
	allocsOnlyKeys map[string]bool
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	code, err := run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchgate:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

func run() (int, error) {
	c := config{allocsOnlyKeys: map[string]bool{}}
	var threshold, instrThreshold string
	var exes, inputs listFlag
	flag.StringVar(&c.base, "base", "HEAD~1", "base revision (git); \"none\" skips the gate")
	flag.StringVar(&c.setFile, "set", "", "gated-set file (bench/gate.txt); PKG=REGEXP arguments add time entries")
	flag.StringVar(&threshold, "threshold", "10%", "slowdown that fails when significant (e.g. 10% or 0.1)")
	flag.StringVar(&instrThreshold, "instr-threshold", "5%", "instruction-count increase that fails (against the base and the stored baseline)")
	flag.StringVar(&c.instrBaseline, "instr-baseline", "", "stored instruction baseline (profiles/instructions-amd64.txt); required with instr entries")
	flag.StringVar(&c.arm64Baseline, "arm64-baseline", "", "stored instruction baseline of the instr:arm64 and exec:arm64 entries (profiles/instructions-arm64.txt)")
	flag.StringVar(&c.qemuPlugin, "qemu-plugin", "", "the qemuinsn TCG plugin (make qemuinsn) that counts arm64 entries under qemu-aarch64")
	flag.StringVar(&c.arm64Root, "arm64-root", "", "the arm64 sysroot for qemu-aarch64 -L (ARM64_ROOT, make arm64-deps)")
	flag.BoolVar(&c.record, "record-instr", false, "measure the working tree's instr entries and write -instr-baseline and -arm64-baseline (with -reason); no gate")
	flag.StringVar(&c.recordArch, "record-arch", "", "with -record-instr: write only this arch's baseline (the host's GOARCH, or arm64)")
	flag.StringVar(&c.reason, "reason", "", "with -record-instr: why the baseline is re-recorded")
	flag.StringVar(&c.measureOut, "measure-instr", "", "measure the working tree's instr entries into this `file` (benchmark format, for make bench's verdict); no gate")
	flag.Float64Var(&c.alpha, "alpha", 0.05, "significance level of the Mann-Whitney U test")
	flag.IntVar(&c.count, "count", 10, "rounds (samples per benchmark and revision)")
	flag.IntVar(&c.confirm, "confirm", 10, "rounds of a second run of the packages with a time failure, which must fail too (0: no second run)")
	flag.StringVar(&c.benchtime, "benchtime", "100ms", "-benchtime of every run")
	flag.StringVar(&c.cpu, "cpu", strconv.Itoa(runtime.NumCPU()), "-cpu of every run (fixed)")
	flag.StringVar(&c.out, "out", "bench/out/gate", "output directory")
	flag.Var(&exes, "exe", "main package the benchmarks build and run (repeatable): part of every package's fingerprint")
	flag.Var(&inputs, "input", "file the benchmarks read (repeatable): part of every package's fingerprint")
	flag.BoolVar(&c.compareIdentical, "compare-identical", false, "also run and judge packages whose base and head builds are identical")
	cpuProbe := flag.Bool("cpu-probe", false, "print the CPU this process sees and exit (the gate runs itself with it under valgrind)")
	flag.Parse()
	if *cpuProbe {
		fmt.Println(cpuFeatures())
		return 0, nil
	}
	c.exes, c.inputs = exes, inputs
	var err error
	if c.threshold, err = parseThreshold("-threshold", threshold); err != nil {
		return 0, err
	}
	if c.instrThreshold, err = parseThreshold("-instr-threshold", instrThreshold); err != nil {
		return 0, err
	}
	if c.count < 2 || c.confirm == 1 {
		return 0, errors.New("-count and -confirm must be at least 2 (the U test needs samples); -confirm 0 turns the second run off")
	}
	if c.setFile != "" {
		gs, err := loadGateSet(c.setFile)
		if err != nil {
			return 0, err
		}
		c.add(gs.entries)
	}
	for _, a := range flag.Args() {
		dir, re, ok := strings.Cut(a, "=")
		if !ok || dir == "" || re == "" {
			return 0, fmt.Errorf("argument %q: want PKGDIR=REGEXP", a)
		}
		c.pkgs = append(c.pkgs, pkgSpec{dir: filepath.Clean(dir), bench: re})
	}
	if len(c.pkgs) == 0 && len(c.instr) == 0 {
		return 0, errors.New("no packages to gate")
	}
	for _, e := range c.instr {
		if c.baselineFor(e.arch) == "" {
			return 0, fmt.Errorf("%s needs a stored baseline (-instr-baseline, or -arm64-baseline for :arm64)", e)
		}
	}
	if c.recordArch != "" && c.recordArch != runtime.GOARCH && c.recordArch != archARM64 {
		return 0, fmt.Errorf("-record-arch %q: want %s (the host's entries) or arm64", c.recordArch, runtime.GOARCH)
	}
	if c.record && c.reason == "" {
		return 0, errors.New("-record-instr needs -reason")
	}
	start := time.Now()
	var code int
	switch {
	case c.record:
		err = record(&c)
	case c.measureOut != "":
		err = measure(&c, c.measureOut)
	default:
		code, err = gate(&c)
	}
	fmt.Printf("benchgate: %s\n", time.Since(start).Round(time.Second))
	return code, err
}

func (c *config) add(entries []gateEntry) {
	for _, e := range entries {
		switch e.kind {
		case kindInstr, kindExec:
			c.instr = append(c.instr, e)
		default:
			c.pkgs = append(c.pkgs, pkgSpec{dir: filepath.Clean(e.dir), bench: e.bench, allocsOnly: e.kind == kindAllocs})
		}
	}
}

// baselineFor returns the stored baseline of arch's entries.
func (c *config) baselineFor(arch string) string {
	if arch == archARM64 {
		return c.arm64Baseline
	}
	return c.instrBaseline
}

// archName names an entry's arch: the host's GOARCH for "".
func archName(arch string) string {
	if arch == "" {
		return runtime.GOARCH
	}
	return arch
}

// arches returns the archs of the instr entries, the host's ("") first.
func (c *config) arches() []string {
	var out []string
	for _, e := range c.instr {
		if !slices.Contains(out, e.arch) {
			out = append(out, e.arch)
		}
	}
	slices.Sort(out)
	return out
}

func parseThreshold(flagName, s string) (float64, error) {
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%s %q: want e.g. 10%% or 0.1", flagName, s)
	}
	if pct {
		v /= 100
	}
	return v, nil
}

func moduleRoot() (string, error) {
	root, err := output("", "go", "env", "GOMOD")
	if err != nil {
		return "", err
	}
	return filepath.Dir(strings.TrimSpace(root)), nil
}

// measureHead measures the working tree's instr entries, each the median
// of runs measurements, and returns them in the set's order.
func measureHead(c *config, runs int) ([]instrResult, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "benchgate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bins := map[string]string{}
	var res []instrResult
	for i, e := range c.instr {
		bin, ok := bins[e.dir+":"+e.arch]
		if !ok {
			bin = filepath.Join(tmp, fmt.Sprintf("instr-%d.test", i))
			build := buildTest
			if e.kind == kindExec {
				build = buildCommand
			}
			if err := build(root, e.dir, e.arch, bin); err != nil {
				return nil, err
			}
			bins[e.dir+":"+e.arch] = bin
		}
		var name string
		var vs []float64
		for range runs {
			nm, v, err := measureEntry(c, bin, root, e)
			if err != nil {
				return nil, err
			}
			name, vs = nm, append(vs, v)
		}
		v := benchdata.Median(vs)
		fmt.Printf("%s\t%.0f instructions/op (of %.0f)\n", name, v, vs)
		res = append(res, instrResult{name: name, dir: e.dir, arch: e.arch, head: v, threshold: e.threshold})
	}
	return res, nil
}

// record measures the working tree's instr entries and writes the stored
// baseline. The stored figure is what later runs are held to: the median
// of recordRuns measurements, so that one run's outlier is not it.
func record(c *config) error {
	if c.recordArch != "" {
		c.instr = slices.DeleteFunc(slices.Clone(c.instr), func(e gateEntry) bool { return archName(e.arch) != c.recordArch })
	}
	res, err := measureHead(c, recordRuns)
	if err != nil {
		return err
	}
	for _, arch := range c.arches() {
		cpu, err := countedCPU(c, arch)
		if err != nil {
			return err
		}
		b := &benchdata.InstrBaseline{Reason: c.reason, GoVersion: goVersion(), CPU: cpu, PerOp: map[string]float64{}}
		for _, r := range res {
			if r.arch == arch {
				b.PerOp[r.name] = r.head
			}
		}
		if err := b.Write(c.baselineFor(arch)); err != nil {
			return err
		}
		fmt.Printf("benchgate: wrote %s (%d entries)\n", c.baselineFor(arch), len(b.PerOp))
	}
	return nil
}

// measure writes the working tree's instr entries to path in the
// benchmark format (unit benchdata.InstrUnit, "goversion" in the file's
// configuration), for `make bench`'s verdict (bench/cmd/benchsum judges
// them against the stored baseline).
func measure(c *config, path string) error {
	res, err := measureHead(c, 1)
	if err != nil {
		return err
	}
	var w strings.Builder
	fmt.Fprintf(&w, "goversion: %s\n", goVersion())
	dir := ""
	for _, r := range res {
		_, name, _ := strings.Cut(r.name, ":")
		if r.dir != dir {
			fmt.Fprintf(&w, "pkg: github.com/orcgo/orcrt/%s\n", strings.TrimPrefix(r.dir, "./"))
			dir = r.dir
		}
		fmt.Fprintf(&w, "Benchmark%s 1 %.0f %s\n", name, r.head, benchdata.InstrUnit)
	}
	if err := os.WriteFile(path, []byte(w.String()), 0o644); err != nil {
		return err
	}
	fmt.Printf("benchgate: wrote %s (%d entries)\n", path, len(res))
	return nil
}

// recordRuns is how many measurements a stored figure is the median of.
const recordRuns = 3

func gate(c *config) (int, error) {
	root, err := moduleRoot()
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return 0, err
	}
	out, _ := filepath.Abs(c.out)
	tmp, err := os.MkdirTemp("", "benchgate-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)

	if c.base == "none" {
		fmt.Println("benchgate: -base none: no comparison (gate skipped on request)")
		return 0, nil
	}
	sha, err := output(root, "git", "rev-parse", "--verify", c.base+"^{commit}")
	if err != nil {
		return 0, fmt.Errorf("base %q: %w (a shallow clone lacks it: fetch more history, name another base, or skip the gate with -base none / BENCH_BASE=none)", c.base, err)
	}
	sha = strings.TrimSpace(sha)
	baseTree := filepath.Join(tmp, "base")
	if _, err := output(root, "git", "worktree", "add", "--detach", baseTree, sha); err != nil {
		return 0, err
	}
	defer func() {
		if _, err := output(root, "git", "worktree", "remove", "--force", baseTree); err != nil {
			fmt.Fprintln(os.Stderr, "benchgate:", err)
		}
	}()
	fmt.Printf("benchgate: base %s (%s), head = working tree %s\n", c.base, sha[:12], root)
	fmt.Printf("benchgate: %d rounds, -benchtime %s, -cpu %s, threshold %.0f%%, alpha %g; instructions: threshold %.0f%%\n",
		c.count, c.benchtime, c.cpu, c.threshold*100, c.alpha, c.instrThreshold*100)

	failed := 0
	if c.setFile != "" {
		n, err := checkSetAgainstBase(c, baseTree)
		if err != nil {
			return 0, err
		}
		failed += n
	}

	fp := fingerprints{tmp: tmp}
	if err := fp.common(c, root, baseTree); err != nil {
		return 0, err
	}
	var built []bins
	var newPkgs, identical []string
	for i, p := range c.pkgs {
		b, err := fp.build(root, baseTree, p.dir, "", i, false)
		if err != nil {
			return 0, err
		}
		switch {
		case b.base == "":
			newPkgs = append(newPkgs, p.dir)
		case b.identical && !c.compareIdentical:
			identical = append(identical, p.dir+" "+p.bench)
			b = bins{} // not run
		}
		built = append(built, b)
	}
	for _, p := range newPkgs {
		fmt.Printf("benchgate: %s: new (the base has no such package)\n", p)
	}
	for _, p := range identical {
		fmt.Printf("benchgate: %s: base and head builds identical (-trimpath, with %v): not compared\n", p, c.exes)
	}

	var run []int
	for i, b := range built {
		if b.head != "" {
			run = append(run, i)
		}
	}
	if len(run) > 0 {
		n, err := timeGate(c, root, baseTree, out, run, built)
		if err != nil {
			return 0, err
		}
		failed += n
	}
	if len(c.instr) > 0 {
		n, err := instrGate(c, root, baseTree, &fp)
		if err != nil {
			return 0, err
		}
		failed += n
	}
	if failed > 0 {
		fmt.Printf("benchgate: FAIL: %d regression(s) against %s\n", failed, c.base)
		return 1, nil
	}
	fmt.Printf("benchgate: PASS: no regression against %s\n", c.base)
	return 0, nil
}

// checkSetAgainstBase fails the gate when the head's gated set dropped
// entries of the base's without a new reason.
func checkSetAgainstBase(c *config, baseTree string) (int, error) {
	head, err := loadGateSet(c.setFile)
	if err != nil {
		return 0, err
	}
	baseSet, err := loadGateSet(filepath.Join(baseTree, c.setFile))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		fmt.Printf("benchgate: the base's %s does not parse (%v): not compared\n", c.setFile, err)
		return 0, nil
	}
	gone, err := dropped(baseSet, head)
	for _, e := range gone {
		fmt.Printf("benchgate: %s: dropped from the gated set (%s)\n", e, head.reason)
	}
	if err != nil {
		fmt.Printf("benchgate: FAIL: %v\n", err)
		return 1, nil
	}
	return 0, nil
}

// timeGate runs the time and allocs entries of the packages run and
// returns the number of regressions.
func timeGate(c *config, root, baseTree, out string, run []int, built []bins) (int, error) {
	rd := rounds{c: c, pkgs: run, bins: built, baseTree: baseTree, root: root}
	baseOut, headOut := filepath.Join(out, "base.txt"), filepath.Join(out, "head.txt")
	if err := rd.run(c.count, baseOut, headOut); err != nil {
		return 0, err
	}

	// The full table, whatever the verdict.
	bs := exec.Command("go", "tool", "benchstat", "base="+baseOut, "head="+headOut)
	bs.Dir = root
	bs.Stdout, bs.Stderr = os.Stdout, os.Stderr
	if err := bs.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchgate: benchstat:", err)
	}
	fmt.Println()

	base, head, err := load(baseOut, headOut)
	if err != nil {
		return 0, err
	}
	failed, slower := verdicts(c, base, head)
	if len(slower) > 0 && c.confirm > 0 {
		// A time failure must repeat in a second, independent run of its
		// packages: one significant result in many is what chance alone
		// gives now and then.
		fmt.Printf("\nbenchgate: %d time failure(s): confirming with %d more rounds of their packages\n", len(slower), c.confirm)
		rd.pkgs = pkgsOf(c, slower, run)
		cb, ch := filepath.Join(out, "base-confirm.txt"), filepath.Join(out, "head-confirm.txt")
		if err := rd.run(c.confirm, cb, ch); err != nil {
			return 0, err
		}
		base2, head2, err := load(cb, ch)
		if err != nil {
			return 0, err
		}
		failed -= len(slower) - confirmed(c, slower, base2, head2)
	}
	return failed, nil
}

// instrGate measures the instr entries on the head, and on the base
// where its build differs, and judges them against the base and the
// stored baseline.
func instrGate(c *config, root, baseTree string, fp *fingerprints) (int, error) {
	type baselines struct{ stored, atBase *benchdata.InstrBaseline }
	stored := map[string]baselines{}
	failed := 0
	for _, arch := range c.arches() {
		path := c.baselineFor(arch)
		st, err := benchdata.ReadInstrBaseline(path)
		if err != nil {
			return 0, err
		}
		if st.GoVersion != goVersion() {
			fmt.Printf("benchgate: FAIL: %s was recorded with %s, this is %s: instruction counts differ between compilers; re-record it (make bench-instr-baseline REASON=...)\n",
				path, st.GoVersion, goVersion())
			failed++
		}
		cpu, err := countedCPU(c, arch)
		if err != nil {
			return 0, err
		}
		atBase, err := benchdata.ReadInstrBaseline(filepath.Join(baseTree, path))
		if errors.Is(err, fs.ErrNotExist) {
			atBase, err = nil, nil
		}
		if err != nil {
			return 0, err
		}
		if st.CPU != cpu {
			// Other code runs on another CPU model: the counts are
			// still compared with the base's, measured here too.
			fmt.Printf("benchgate: %s was recorded on a CPU presented as %q, this one is %q: the runtime's memmove and memclr and glibc's memcpy take other paths on it (RATIONALE.md, \"The regression gate\"), so its figures are judged against the base only\n",
				path, st.CPU, cpu)
			st = nil
		}
		stored[arch] = baselines{st, atBase}
	}
	if failed > 0 {
		return failed, nil
	}
	var res []instrResult
	for i, e := range c.instr {
		b, err := fp.build(root, baseTree, e.dir, e.arch, len(c.pkgs)+i, e.kind == kindExec)
		if err != nil {
			return 0, err
		}
		name, head, err := measureEntry(c, b.head, root, e)
		if err != nil {
			return 0, err
		}
		r := instrResult{name: name, arch: e.arch, head: head, threshold: e.threshold}
		switch {
		case b.base == "":
		case b.identical && !c.compareIdentical:
			r.base = head
		default:
			if _, r.base, err = measureEntry(c, b.base, baseTree, e); err != nil {
				return 0, err
			}
		}
		res = append(res, r)
	}
	for _, arch := range c.arches() {
		var mine []instrResult
		for _, r := range res {
			if r.arch == arch {
				mine = append(mine, r)
			}
		}
		how := "the host's build under cachegrind"
		if arch == archARM64 {
			how = "linux/arm64 under qemu-aarch64 -cpu " + qemuCPU + " with qemuinsn"
		}
		st := stored[arch]
		against := "no stored baseline on this CPU"
		if st.stored != nil {
			against = "stored baseline " + c.baselineFor(arch) + ", " + st.stored.Reason
		}
		fmt.Printf("\nbenchgate: instructions per op, %s (%d entries; %s)\n", how, len(mine), against)
		failed += instrVerdicts(c, mine, st.stored, st.atBase)
	}
	return failed, nil
}

type bins struct {
	base, head string
	identical  bool // same bytes, and the same -exe builds and -input files
}

// fingerprints builds test binaries with -trimpath, so that two
// revisions whose code a benchmark runs is the same build to the same
// bytes, and tells whether the rest of what the benchmarks run (-exe,
// -input) is the same in both.
type fingerprints struct {
	tmp        string
	commonSame bool
	built      map[string]bins
}

func (fp *fingerprints) common(c *config, root, baseTree string) error {
	fp.commonSame = true
	for i, exe := range c.exes {
		h, b := filepath.Join(fp.tmp, fmt.Sprintf("exe-head-%d", i)), filepath.Join(fp.tmp, fmt.Sprintf("exe-base-%d", i))
		if _, err := output(root, "go", "build", "-trimpath", "-o", h, exe); err != nil {
			return fmt.Errorf("head: %w", err)
		}
		if _, err := output(baseTree, "go", "build", "-trimpath", "-o", b, exe); err != nil {
			fp.commonSame = false // the base has no such command, or it does not build
			continue
		}
		if same, err := sameFiles(h, b); err != nil || !same {
			fp.commonSame = false
		}
	}
	for _, in := range c.inputs {
		if same, err := sameFiles(filepath.Join(root, in), filepath.Join(baseTree, in)); err != nil || !same {
			fp.commonSame = false
		}
	}
	return nil
}

// build returns the package's test binaries, or with exe its command
// (base empty when the base has no such package), built once per package.
func (fp *fingerprints) build(root, baseTree, dir, arch string, i int, exe bool) (bins, error) {
	if b, ok := fp.built[dir+":"+arch]; ok {
		return b, nil
	}
	buildFn := buildTest
	if exe {
		buildFn = buildCommand
	}
	b := bins{head: filepath.Join(fp.tmp, fmt.Sprintf("head-%d.test", i))}
	if err := buildFn(root, dir, arch, b.head); err != nil {
		return b, fmt.Errorf("head: %w", err)
	}
	if _, err := os.Stat(filepath.Join(baseTree, dir)); err == nil {
		b.base = filepath.Join(fp.tmp, fmt.Sprintf("base-%d.test", i))
		if err := buildFn(baseTree, dir, arch, b.base); err != nil {
			return b, fmt.Errorf("base: %w", err)
		}
		same, err := sameFiles(b.head, b.base)
		if err != nil {
			return b, err
		}
		b.identical = same && fp.commonSame
	}
	if fp.built == nil {
		fp.built = map[string]bins{}
	}
	fp.built[dir+":"+arch] = b
	return b, nil
}

// sameFiles reports whether two files have the same bytes; a file
// missing on one side only is a difference.
func sameFiles(a, b string) (bool, error) {
	x, errA := os.ReadFile(a)
	y, errB := os.ReadFile(b)
	switch {
	case errA != nil && errB != nil && errors.Is(errA, fs.ErrNotExist) && errors.Is(errB, fs.ErrNotExist):
		return true, nil
	case errA != nil && !errors.Is(errA, fs.ErrNotExist):
		return false, errA
	case errB != nil && !errors.Is(errB, fs.ErrNotExist):
		return false, errB
	case errA != nil || errB != nil:
		return false, nil
	}
	return bytes.Equal(x, y), nil
}

// rounds runs some of the gated packages' binaries, alternating base and
// head.
type rounds struct {
	c              *config
	pkgs           []int // indices into c.pkgs and bins
	bins           []bins
	baseTree, root string
}

// run writes n rounds to the files baseOut and headOut, created anew.
func (rd *rounds) run(n int, baseOut, headOut string) error {
	bf, err := os.Create(baseOut)
	if err != nil {
		return err
	}
	defer bf.Close()
	hf, err := os.Create(headOut)
	if err != nil {
		return err
	}
	defer hf.Close()
	for r := range n {
		fmt.Fprintf(os.Stderr, "benchgate: round %d/%d\n", r+1, n)
		for _, i := range rd.pkgs {
			p := rd.c.pkgs[i]
			type one struct {
				bin, tree string
				w         *os.File
			}
			runs := []one{{rd.bins[i].base, rd.baseTree, bf}, {rd.bins[i].head, rd.root, hf}}
			if r%2 == 1 {
				runs[0], runs[1] = runs[1], runs[0]
			}
			for _, o := range runs {
				if o.bin == "" {
					continue
				}
				res, err := runBench(rd.c, o.bin, filepath.Join(o.tree, p.dir), p.bench)
				if err != nil {
					return err
				}
				if p.allocsOnly {
					rd.c.markAllocsOnly(res)
				}
				if _, err := o.w.Write(res); err != nil {
					return err
				}
			}
		}
	}
	if err := bf.Close(); err != nil {
		return err
	}
	return hf.Close()
}

// markAllocsOnly records the benchmarks of an allocs entry's output.
func (c *config) markAllocsOnly(res []byte) {
	s := benchdata.New()
	if err := s.Read(bytes.NewReader(res), "allocs"); err != nil {
		return
	}
	for _, k := range s.Keys() {
		c.allocsOnlyKeys[k.Pkg+":"+k.Name] = true
	}
}

func load(baseOut, headOut string) (base, head *benchdata.Set, err error) {
	if base, err = benchdata.Load(baseOut); err != nil {
		return nil, nil, err
	}
	head, err = benchdata.Load(headOut)
	return base, head, err
}

// pkgsOf returns the indices, among those of run, of the packages the
// benchmarks keys belong to (a key's Pkg is the last element of its
// package path).
func pkgsOf(c *config, keys []benchdata.Key, run []int) []int {
	var idx []int
	for _, i := range run {
		p := c.pkgs[i]
		for _, k := range keys {
			if k.Pkg == filepath.Base(p.dir) {
				idx = append(idx, i)
				break
			}
		}
	}
	return idx
}

// confirmed judges the time failures keys again on the second run's
// samples and returns how many fail there too.
func confirmed(c *config, keys []benchdata.Key, base, head *benchdata.Set) int {
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark\tunit\tbase\thead\tdelta\tp\tverdict")
	n := 0
	for _, k := range keys {
		b, h := base.Samples[k]["ns/op"], head.Samples[k]["ns/op"]
		if len(b) == 0 || len(h) == 0 {
			fmt.Fprintf(tw, "%s\tns/op\t\t\t\t\tmissing from the second run: FAIL stands\n", k)
			n++
			continue
		}
		line, fail := judge(c, "ns/op", b, h)
		if fail {
			n++
			line += ", confirmed"
		} else {
			line += " (the first run's FAIL is not confirmed)"
		}
		fmt.Fprintf(tw, "%s\tns/op\t%s\n", k, line)
	}
	tw.Flush()
	return n
}

func buildTest(tree, pkg, arch, out string) error {
	// -trimpath: the same code builds to the same bytes in both trees.
	cmd := exec.Command("go", "test", "-c", "-trimpath", "-o", out, "./"+filepath.ToSlash(pkg))
	cmd.Dir = tree
	cmd.Env = buildEnv(arch)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go test -c %s in %s: %w\n%s", pkg, tree, err, b)
	}
	return nil
}

// buildCommand builds a main package, as buildTest a test binary.
func buildCommand(tree, pkg, arch, out string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, "./"+filepath.ToSlash(pkg))
	cmd.Dir = tree
	cmd.Env = buildEnv(arch)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s in %s: %w\n%s", pkg, tree, err, b)
	}
	return nil
}

// buildEnv is the environment of a build for arch: nil (the process's)
// for the host, a cgo cross build for arm64 (.ci/arm64.mk's ARM64_ENV).
func buildEnv(arch string) []string {
	if arch != archARM64 {
		return nil
	}
	cc := os.Getenv("ARM64_CC")
	if cc == "" {
		cc = "aarch64-linux-gnu-gcc"
	}
	return append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=1", "CC="+cc)
}

func runBench(c *config, bin, dir, bench string) ([]byte, error) {
	cmd := exec.Command(bin, "-test.run", "^$", "-test.bench", bench, "-test.benchmem",
		"-test.count", "1", "-test.benchtime", c.benchtime, "-test.cpu", c.cpu)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s in %s: %w\n%s", filepath.Base(bin), dir, err, stderr.Bytes())
	}
	return stdout.Bytes(), nil
}

func output(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return string(b), nil
}

// verdicts prints one line per gated figure and returns the number of
// failures, and the benchmarks among them that failed on time.
func verdicts(c *config, base, head *benchdata.Set) (failed int, slower []benchdata.Key) {
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark\tunit\tbase\thead\tdelta\tp\tverdict")
	for _, k := range head.Keys() {
		hv := head.Samples[k]
		bv, ok := base.Samples[k]
		if !ok {
			fmt.Fprintf(tw, "%s\t\t\t\t\t\tnew\n", k)
			continue
		}
		for _, unit := range []string{"ns/op", "allocs/op", "B/op"} {
			h, b := hv[unit], bv[unit]
			if len(h) == 0 || len(b) == 0 {
				continue
			}
			if unit == "ns/op" && !timeGated(c, k) {
				line, _ := judge(c, unit, b, h)
				fmt.Fprintf(tw, "%s\t%s\t%s (not gated: an allocs entry)\n", k, unit, line)
				continue
			}
			line, fail := judge(c, unit, b, h)
			if fail {
				failed++
				if unit == "ns/op" {
					slower = append(slower, k)
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", k, unit, line)
		}
	}
	for _, k := range base.Keys() {
		if _, ok := head.Samples[k]; !ok {
			fmt.Fprintf(tw, "%s\t\t\t\t\t\tremoved\n", k)
		}
	}
	tw.Flush()
	return failed, slower
}

// timeGated reports whether the benchmark k is gated on its time
// (ns/op), not only on its allocations.
func timeGated(c *config, k benchdata.Key) bool {
	return !c.allocsOnlyKeys[k.Pkg+":"+k.Name]
}

func judge(c *config, unit string, b, h []float64) (string, bool) {
	mb, mh := benchdata.Median(b), benchdata.Median(h)
	delta := "~"
	if mb != 0 {
		delta = fmt.Sprintf("%+.1f%%", (mh/mb-1)*100)
	} else if mh != 0 {
		delta = "+inf"
	}
	cols := func(p, verdict string) string {
		return fmt.Sprintf("%s\t%s\t%s\t%s\t%s", fmtVal(mb, unit), fmtVal(mh, unit), delta, p, verdict)
	}
	switch unit {
	case "ns/op":
		cmp := benchmath.AssumeNothing.Compare(benchmath.NewSample(b, &benchdata.Thresholds), benchmath.NewSample(h, &benchdata.Thresholds))
		p := fmt.Sprintf("p=%.3f n=%d+%d", cmp.P, cmp.N1, cmp.N2)
		switch {
		case cmp.P < c.alpha && mh > mb*(1+c.threshold):
			return cols(p, "FAIL (slower)"), true
		case cmp.P < c.alpha && mh > mb:
			return cols(p, "ok (slower, within threshold)"), false
		case cmp.P < c.alpha && mh < mb:
			return cols(p, "ok (faster)"), false
		}
		return cols(p, "ok (no significant change)"), false
	case "allocs/op":
		if constant(b) && constant(h) {
			if mh > mb {
				return cols("exact", "FAIL (more allocations)"), true
			}
			return cols("exact", "ok"), false
		}
		if mh > maxOf(b) {
			return cols("varies", "FAIL (more allocations)"), true
		}
		return cols("varies", "ok"), false
	default: // B/op
		if constant(b) && constant(h) {
			if mh > mb {
				return cols("exact", "FAIL (more bytes)"), true
			}
			return cols("exact", "ok"), false
		}
		return cols("varies", "reported only"), false
	}
}

func constant(v []float64) bool {
	for _, x := range v {
		if x != v[0] {
			return false
		}
	}
	return true
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

func fmtVal(v float64, unit string) string {
	if unit == "ns/op" {
		switch {
		case v >= 1e6:
			return fmt.Sprintf("%.3fms", v/1e6)
		case v >= 1e3:
			return fmt.Sprintf("%.3fµs", v/1e3)
		}
		return fmt.Sprintf("%.2fns", v)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
