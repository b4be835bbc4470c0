package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/orcgo/orcrt/bench/internal/benchdata"
)

// Instruction counts: a benchmark run under cachegrind at N and 3N
// iterations; the difference divided by 2N is the instructions one
// operation executes, whatever the run's fixed cost (start-up, b.N=1
// probe, set-up). One P, no GC and no asynchronous preemption keep the
// scheduler's and the collector's own work out of it (RATIONALE.md,
// "The regression gate", gives the measured spread).
var instrEnv = []string{"GOMAXPROCS=1", "GOGC=off"}

// instrRuns is how often each of the two lengths runs; the median is
// kept. Run to run, a count varies by up to 2.5% (the pipe round trip:
// how reads and wake-ups fall), in both directions.
const instrRuns = 3

// measureInstr returns the benchmark's figure name and its
// instructions per operation.
func measureInstr(c *config, bin, dir string, e gateEntry) (string, float64, error) {
	var name string
	count := func(n int) (float64, error) {
		var runs []float64
		for range instrRuns {
			var stdout bytes.Buffer
			ir, err := countInstructions(c, e.arch, dir, &stdout, nil, bin, "-test.run", "^$", "-test.bench", e.bench,
				"-test.count", "1", "-test.benchtime", strconv.Itoa(n)+"x", "-test.cpu", "1")
			if err != nil {
				return 0, err
			}
			nm, err := benchName(stdout.Bytes(), bin, e.bench)
			if err != nil {
				return 0, err
			}
			if name != "" && nm != name {
				return 0, fmt.Errorf("%s: %s ran %s, then %s", e.dir, e.bench, name, nm)
			}
			name = nm
			runs = append(runs, ir)
		}
		return benchdata.Median(runs), nil
	}
	short, err := count(e.n)
	if err != nil {
		return "", 0, err
	}
	long, err := count(3 * e.n)
	if err != nil {
		return "", 0, err
	}
	return figureName(e, name), (long - short) / float64(2*e.n), nil
}

// measureEntry measures an instr or exec entry of the tree at root.
func measureEntry(c *config, bin, root string, e gateEntry) (string, float64, error) {
	if e.kind == kindExec {
		return measureExec(c, bin, root, e)
	}
	return measureInstr(c, bin, filepath.Join(root, e.dir), e)
}

// execRuns is how many whole runs an exec entry's count is the median
// of: a start-up's count varies by about 1% under cachegrind, which runs
// one thread at a time, and by up to 8% under QEMU, which runs them at
// once (how long one spins while another works).
func execRuns(arch string) int {
	if arch == archARM64 {
		return 9
	}
	return 5
}

// measureExec returns the instructions of a whole run of the command,
// from exec to exit, its input at end of file: for orcrt-executor, its
// start-up, the Setup message it sends and its shutdown.
func measureExec(c *config, bin, root string, e gateEntry) (string, float64, error) {
	env, args := execEnv(e.args)
	var runs []float64
	for range execRuns(e.arch) {
		ir, err := countInstructions(c, e.arch, root, nil, env, bin, args...) // stdin and stdout: /dev/null
		if err != nil {
			return "", 0, fmt.Errorf("%s: %w", e.dir, err)
		}
		runs = append(runs, ir)
	}
	return figureName(e, e.bench), benchdata.Median(runs), nil
}

var envToken = regexp.MustCompile(`^[A-Z][A-Z0-9_]*=`)

// execEnv splits an exec entry's leading NAME=VALUE tokens (upper-case
// names, as environment variables are spelled) from its arguments.
func execEnv(args []string) (env, rest []string) {
	for len(args) > 0 && envToken.MatchString(args[0]) {
		env, args = append(env, args[0]), args[1:]
	}
	return env, args
}

// instrGODEBUG returns the settings merged into a counted program's
// GODEBUG. asyncpreemptoff=1: no asynchronous preemption. On the host
// (amd64), cpu.rdtscp=off: the runtime's cputicks reads the clock with
// a fenced RDTSC, as valgrind advertises RDTSCP in its CPUID whatever
// the host, and on a host it cannot execute RDTSCP on, the program dies
// of SIGILL in cputicks (issue 41). arm64's runtime knows no rdtscp.
func instrGODEBUG(arch string) []string {
	if arch == archARM64 {
		return []string{"asyncpreemptoff=1"}
	}
	return []string{"asyncpreemptoff=1", "cpu.rdtscp=off"}
}

// instrEnviron returns the environment of a counted program: the
// inherited one, then instrEnv, then the entry's own NAME=VALUE tokens,
// a later value of a name replacing an earlier one. GODEBUG is merged
// setting by setting instead (inherited, instrGODEBUG, the entry's),
// so that no layer drops another's settings.
func instrEnviron(inherited []string, arch string, entry []string) []string {
	var debug []string
	env := make([]string, 0, len(inherited)+len(instrEnv)+len(entry)+1)
	add := func(vars []string) {
		for _, kv := range vars {
			if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
				debug = append(debug, strings.Split(v, ",")...)
				continue
			}
			env = append(env, kv) // exec.Cmd keeps the last value of a name
		}
	}
	add(inherited)
	debug = append(debug, instrGODEBUG(arch)...)
	add(instrEnv)
	add(entry)
	return append(env, "GODEBUG="+mergeGODEBUG(debug))
}

// mergeGODEBUG joins key=value settings, the last value of a key
// winning, in the order keys first appear.
func mergeGODEBUG(settings []string) string {
	var keys []string
	val := map[string]string{}
	for _, s := range settings {
		if s == "" {
			continue
		}
		k, _, _ := strings.Cut(s, "=")
		if _, ok := val[k]; !ok {
			keys = append(keys, k)
		}
		val[k] = s
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = val[k]
	}
	return strings.Join(out, ",")
}

// cachegrindCmd returns the one way the gate runs a program under
// valgrind: bin with args in dir, its environment instrEnviron(the
// process's, env), cachegrind's summary on stderr and its per-line
// counts in outFile (os.DevNull when only the summary is wanted).
func cachegrindCmd(dir, outFile string, env []string, bin string, args ...string) *exec.Cmd {
	cmd := exec.Command("valgrind", append([]string{"--tool=cachegrind", "--cache-sim=no",
		"--smc-check=all-non-file", "--cachegrind-out-file=" + outFile, bin}, args...)...)
	cmd.Dir = dir
	cmd.Env = instrEnviron(os.Environ(), "", env)
	return cmd
}

// qemuCPU is the CPU model arm64 counts run on. The Go runtime picks its
// atomics and glibc its memcpy by the CPU's features, so the model is
// fixed: QEMU's Neoverse N1 (Graviton 2, Ampere Altra), not "max", whose
// features change with QEMU's version.
const qemuCPU = "neoverse-n1"

// qemuCmd returns the one way the gate runs an arm64 program: under
// qemu-aarch64 with the arm64 root as its sysroot and the qemuinsn
// plugin (bench/qemuinsn), which writes the instructions executed to
// countFile at exit.
func qemuCmd(c *config, dir, countFile string, env []string, bin string, args ...string) *exec.Cmd {
	cmd := exec.Command("qemu-aarch64", append([]string{"-L", c.arm64Root, "-cpu", qemuCPU,
		"-plugin", c.qemuPlugin + ",out=" + countFile, bin}, args...)...)
	cmd.Dir = dir
	cmd.Env = instrEnviron(os.Environ(), archARM64, env)
	return cmd
}

// countInstructions runs bin with args in dir, counted for arch (the
// host's under cachegrind, or arm64 under QEMU), its output to stdout
// (nil: /dev/null), and returns the instructions the process executed.
func countInstructions(c *config, arch, dir string, stdout io.Writer, env []string, bin string, args ...string) (float64, error) {
	var cmd *exec.Cmd
	countFile := ""
	if arch == archARM64 {
		if c.qemuPlugin == "" || c.arm64Root == "" || strings.Contains(c.qemuPlugin, ",") {
			return 0, errors.New("arm64 entries need -qemu-plugin (a path without commas) and -arm64-root (make qemuinsn arm64-deps)")
		}
		f, err := os.CreateTemp("", "qemuinsn-*.txt")
		if err != nil {
			return 0, err
		}
		countFile = f.Name()
		f.Close()
		defer os.Remove(countFile)
		cmd = qemuCmd(c, dir, countFile, env, bin, args...)
	} else {
		cmd = cachegrindCmd(dir, os.DevNull, env, bin, args...)
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	what := filepath.Base(bin) + " " + strings.Join(args, " ")
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return 0, fmt.Errorf("%s not found: instruction counts need it (make deps arm64-deps installs it)", cmd.Args[0])
		}
		return 0, fmt.Errorf("%s %s: %w\n%s", cmd.Args[0], what, err, stderr.Bytes())
	}
	if countFile == "" {
		ir, err := parseIRefs(stderr.String())
		if err != nil {
			return 0, fmt.Errorf("%s: %w", what, err)
		}
		return ir, nil
	}
	b, err := os.ReadFile(countFile)
	if err == nil {
		var n float64
		if n, err = parseQemuinsn(string(b)); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("%s: qemuinsn: %w\n%s", what, err, stderr.Bytes())
}

// countedCPU describes the CPU arch's counted programs see: on the host,
// the one valgrind presents (this program run under it with -cpu-probe);
// on arm64, QEMU's model.
func countedCPU(c *config, arch string) (string, error) {
	if arch == archARM64 {
		return "qemu-aarch64 -cpu " + qemuCPU, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	var stdout bytes.Buffer
	if _, err := countInstructions(c, arch, ".", &stdout, nil, self, "-cpu-probe"); err != nil {
		return "", fmt.Errorf("the CPU valgrind presents: %w", err)
	}
	return strings.TrimSpace(stdout.String()), nil
}

// parseQemuinsn reads the plugin's "instructions: N" line.
func parseQemuinsn(out string) (float64, error) {
	v, ok := strings.CutPrefix(strings.TrimSpace(out), "instructions: ")
	if !ok {
		return 0, fmt.Errorf("no \"instructions:\" line in %q", out)
	}
	return strconv.ParseFloat(v, 64)
}

// benchName returns the one benchmark a test binary's output ran.
func benchName(stdout []byte, bin, bench string) (string, error) {
	var names []string
	for line := range strings.Lines(string(stdout)) {
		if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(f[0], "Benchmark") {
			names = append(names, strings.TrimPrefix(f[0], "Benchmark"))
		}
	}
	if len(names) != 1 {
		return "", fmt.Errorf("%s -test.bench %s ran %d benchmarks %v: an instr entry must name exactly one", filepath.Base(bin), bench, len(names), names)
	}
	return names[0], nil
}

// figureName is an entry's figure as the baselines and the verdict key
// it: pkg:Name, and /goarch=arm64 for arm64 counts.
func figureName(e gateEntry, name string) string {
	s := filepath.Base(e.dir) + ":" + name
	if e.arch != "" {
		s += "/goarch=" + e.arch
	}
	return s
}

// parseIRefs finds cachegrind's "I   refs:      12,345" summary line.
func parseIRefs(out string) (float64, error) {
	for line := range strings.Lines(out) {
		_, rest, ok := strings.Cut(line, "I   refs:")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSpace(rest), ",", ""), 64)
		if err != nil {
			return 0, fmt.Errorf("cachegrind summary %q: %w", strings.TrimSpace(line), err)
		}
		return v, nil
	}
	return 0, errors.New("no \"I refs\" line in cachegrind's output")
}

// instrResult is one instr entry measured on both revisions.
type instrResult struct {
	name       string
	dir        string  // the entry's package directory
	arch       string  // the entry's, "" for the host
	base, head float64 // per op; base 0 when the base lacks the package
	threshold  float64 // the entry's own, or 0
}

// instrVerdicts prints the instruction table and returns the number of
// failures: more than threshold above the parent or the stored baseline,
// missing from the baseline, or in the baseline but no longer measured
// (unless the baseline was re-recorded with a new reason). A nil stored
// baseline (recorded on another CPU) judges against the parent only.
func instrVerdicts(c *config, res []instrResult, stored, storedAtBase *benchdata.InstrBaseline) int {
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "instructions/op\tstored\tbase\thead\tvs base\tvs stored\tverdict")
	failed := 0
	seen := map[string]bool{}
	for _, r := range res {
		seen[r.name] = true
		thr := c.instrThreshold
		if r.threshold != 0 {
			thr = r.threshold
		}
		var why []string
		vsBase, vsStored := "-", "-"
		if r.base > 0 {
			d := r.head/r.base - 1
			vsBase = fmt.Sprintf("%+.1f%%", d*100)
			if d > thr {
				why = append(why, "above the base")
			}
		}
		var st float64
		ok := stored == nil
		if stored != nil {
			st, ok = stored.PerOp[r.name]
		}
		if st != 0 {
			d := r.head/st - 1
			vsStored = fmt.Sprintf("%+.1f%%", d*100)
			if d > thr {
				why = append(why, "above the stored baseline (creep)")
			}
		} else if !ok {
			why = append(why, "not in the stored baseline (record it)")
		}
		verdict := "ok"
		if len(why) > 0 {
			verdict = "FAIL (" + strings.Join(why, "; ") + ")"
			failed++
		} else if st != 0 && r.head < st*(1-thr) {
			verdict = "ok (faster than stored: re-record to keep the gain)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%s\t%s\t%s\n", r.name, fmtCount(st), fmtCount(r.base), r.head, vsBase, vsStored, verdict)
	}
	// A stored benchmark of a package the set still measures must still
	// be measured: otherwise it was removed or renamed. (Dropping a
	// package from the set is the set file's own check.)
	if stored == nil {
		tw.Flush()
		return failed
	}
	measuredPkg := map[string]bool{}
	for _, r := range res {
		measuredPkg[pkgOf(r.name)] = true
	}
	renewed := storedAtBase == nil || storedAtBase.Reason != stored.Reason
	var gone []string
	for n := range stored.PerOp {
		if !seen[n] && measuredPkg[pkgOf(n)] {
			gone = append(gone, n)
		}
	}
	sort.Strings(gone)
	for _, n := range gone {
		if renewed {
			fmt.Fprintf(tw, "%s\t%.0f\t\t\t\t\tok (not measured; the baseline was re-recorded: %s)\n", n, stored.PerOp[n], stored.Reason)
			continue
		}
		fmt.Fprintf(tw, "%s\t%.0f\t\t\t\t\tFAIL (removed or renamed: re-record the baseline with a reason)\n", n, stored.PerOp[n])
		failed++
	}
	tw.Flush()
	return failed
}

func pkgOf(name string) string {
	p, _, _ := strings.Cut(name, ":")
	return p
}

func fmtCount(v float64) string {
	if v == 0 {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

func goVersion() string { return runtime.Version() }
