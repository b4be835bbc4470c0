package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/perf/benchmath"

	"github.com/orcgo/orcrt/bench/internal/benchdata"
)

type pkgSpec struct{ dir, bench string }

type config struct {
	base      string
	threshold float64
	alpha     float64
	count     int
	confirm   int // rounds of the second run that must agree with a time failure
	benchtime string
	cpu       string
	out       string
	pkgs      []pkgSpec
	// allocsOnly matches benchmarks whose time is reported but not gated
	// (their allocations still are): figures dominated by system calls
	// whose cost varies more between runs than any threshold allows.
	allocsOnly *regexp.Regexp
}

func main() {
	code, err := run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchgate:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

func run() (int, error) {
	var c config
	var threshold string
	flag.StringVar(&c.base, "base", "HEAD~1", "base revision (git); \"none\" skips the gate")
	flag.StringVar(&threshold, "threshold", "10%", "slowdown that fails when significant (e.g. 10% or 0.1)")
	flag.Float64Var(&c.alpha, "alpha", 0.05, "significance level of the Mann-Whitney U test")
	flag.IntVar(&c.count, "count", 10, "rounds (samples per benchmark and revision)")
	flag.IntVar(&c.confirm, "confirm", 10, "rounds of a second run of the packages with a time failure, which must fail too (0: no second run)")
	flag.StringVar(&c.benchtime, "benchtime", "100ms", "-benchtime of every run")
	flag.StringVar(&c.cpu, "cpu", strconv.Itoa(runtime.NumCPU()), "-cpu of every run (fixed)")
	flag.StringVar(&c.out, "out", "bench/out/gate", "output directory")
	var allocsOnly string
	flag.StringVar(&allocsOnly, "allocs-only", "", "regexp of benchmarks (as the verdict table names them) whose ns/op is reported, not gated")
	flag.Parse()
	t, err := parseThreshold(threshold)
	if err != nil {
		return 0, err
	}
	c.threshold = t
	if allocsOnly != "" {
		if c.allocsOnly, err = regexp.Compile(allocsOnly); err != nil {
			return 0, fmt.Errorf("-allocs-only: %w", err)
		}
	}
	if c.count < 2 || c.confirm == 1 {
		return 0, errors.New("-count and -confirm must be at least 2 (the U test needs samples); -confirm 0 turns the second run off")
	}
	for _, a := range flag.Args() {
		dir, re, ok := strings.Cut(a, "=")
		if !ok || dir == "" || re == "" {
			return 0, fmt.Errorf("argument %q: want PKGDIR=REGEXP", a)
		}
		c.pkgs = append(c.pkgs, pkgSpec{filepath.Clean(dir), re})
	}
	if len(c.pkgs) == 0 {
		return 0, errors.New("no packages to gate")
	}
	start := time.Now()
	code, err := gate(&c)
	fmt.Printf("benchgate: %s\n", time.Since(start).Round(time.Second))
	return code, err
}

func parseThreshold(s string) (float64, error) {
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("-threshold %q: want e.g. 10%% or 0.1", s)
	}
	if pct {
		v /= 100
	}
	return v, nil
}

func gate(c *config) (int, error) {
	root, err := output("", "go", "env", "GOMOD")
	if err != nil {
		return 0, err
	}
	root = filepath.Dir(strings.TrimSpace(root))
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
	fmt.Printf("benchgate: %d rounds, -benchtime %s, -cpu %s, threshold %.0f%%, alpha %g\n",
		c.count, c.benchtime, c.cpu, c.threshold*100, c.alpha)

	var built []bins
	var newPkgs []string
	for i, p := range c.pkgs {
		b := bins{head: filepath.Join(tmp, fmt.Sprintf("head-%d.test", i))}
		if err := buildTest(root, p.dir, b.head); err != nil {
			return 0, fmt.Errorf("head: %w", err)
		}
		if _, err := os.Stat(filepath.Join(baseTree, p.dir)); err == nil {
			b.base = filepath.Join(tmp, fmt.Sprintf("base-%d.test", i))
			if err := buildTest(baseTree, p.dir, b.base); err != nil {
				return 0, fmt.Errorf("base: %w", err)
			}
		} else {
			newPkgs = append(newPkgs, p.dir)
		}
		built = append(built, b)
	}

	all := make([]int, len(c.pkgs))
	for i := range all {
		all[i] = i
	}
	rd := rounds{c: c, pkgs: all, bins: built, baseTree: baseTree, root: root}
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
	for _, p := range newPkgs {
		fmt.Printf("benchgate: %s: new (the base has no such package)\n", p)
	}
	failed, slower := verdicts(c, base, head)
	if len(slower) > 0 && c.confirm > 0 {
		// A time failure must repeat in a second, independent run of its
		// packages: one significant result in many is what chance alone
		// gives now and then.
		fmt.Printf("\nbenchgate: %d time failure(s): confirming with %d more rounds of their packages\n", len(slower), c.confirm)
		rd.pkgs = pkgsOf(c, slower)
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
	if failed > 0 {
		fmt.Printf("benchgate: FAIL: %d regression(s) against %s\n", failed, c.base)
		return 1, nil
	}
	fmt.Printf("benchgate: PASS: no regression against %s\n", c.base)
	return 0, nil
}

type bins struct{ base, head string }

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
				if err := runBench(rd.c, o.bin, filepath.Join(o.tree, p.dir), p.bench, o.w); err != nil {
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

func load(baseOut, headOut string) (base, head *benchdata.Set, err error) {
	if base, err = benchdata.Load(baseOut); err != nil {
		return nil, nil, err
	}
	head, err = benchdata.Load(headOut)
	return base, head, err
}

// pkgsOf returns the indices of the packages the benchmarks keys belong
// to (a key's Pkg is the last element of its package path).
func pkgsOf(c *config, keys []benchdata.Key) []int {
	var idx []int
	for i, p := range c.pkgs {
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

func buildTest(tree, pkg, out string) error {
	cmd := exec.Command("go", "test", "-c", "-o", out, "./"+filepath.ToSlash(pkg))
	cmd.Dir = tree
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go test -c %s in %s: %w\n%s", pkg, tree, err, b)
	}
	return nil
}

func runBench(c *config, bin, dir, bench string, w *os.File) error {
	cmd := exec.Command(bin, "-test.run", "^$", "-test.bench", bench, "-test.benchmem",
		"-test.count", "1", "-test.benchtime", c.benchtime, "-test.cpu", c.cpu)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s in %s: %w\n%s", filepath.Base(bin), dir, err, stderr.Bytes())
	}
	return nil
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
			if unit == "ns/op" && !timeGated(c, k.String()) {
				line, _ := judge(c, unit, b, h)
				fmt.Fprintf(tw, "%s\t%s\t%s (not gated: -allocs-only)\n", k, unit, line)
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

// timeGated reports whether the benchmark named name is gated on its
// time (ns/op), not only on its allocations.
func timeGated(c *config, name string) bool {
	return c.allocsOnly == nil || !c.allocsOnly.MatchString(name)
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
