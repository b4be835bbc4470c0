package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/orcgo/orcrt/bench/internal/benchdata"
)

type target struct {
	issue, id, figure, unit, limit, anchor string
	line                                   int
}

// readStored reads the stored baselines into one: their figures (the
// arm64 ones are named .../goarch=arm64), recorded by one Go release.
func readStored(paths []string) (*benchdata.InstrBaseline, error) {
	var all *benchdata.InstrBaseline
	for _, p := range paths {
		b, err := benchdata.ReadInstrBaseline(p)
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = b
			continue
		}
		if b.GoVersion != all.GoVersion {
			return nil, fmt.Errorf("benchsum: %s was recorded by %s, %s by %s: re-record them with one release", p, b.GoVersion, paths[0], all.GoVersion)
		}
		maps.Copy(all.PerOp, b.PerOp)
	}
	return all, nil
}

func main() {
	targets := flag.String("targets", "bench/targets.txt", "targets table")
	tests := flag.String("tests", "", "`go test -v` output holding the tests of unit \"test\"")
	goals := flag.String("goals", "", "goals table: printed after the verdict, never failing it")
	strict := flag.Bool("strict", false, "exit 1 if a target fails")
	storedFiles := flag.String("stored", "", "stored instruction baselines, comma-separated (profiles/instructions-amd64.txt,profiles/instructions-arm64.txt): the anchor \"stored\"")
	units := flag.String("units", "", "judge only the targets and goals of these units (comma-separated; e.g. instructions/op for `make bench-instr`)")
	flag.Parse()
	ts, err := readTargets(*targets)
	if err != nil {
		fatal(err)
	}
	ts = ofUnits(ts, *units)
	var gs []target
	if *goals != "" {
		if gs, err = readTargets(*goals); err != nil {
			fatal(err)
		}
		gs = ofUnits(gs, *units)
	}
	set, err := benchdata.Load(flag.Args()...)
	if err != nil {
		fatal(err)
	}
	var testOut string
	if *tests != "" {
		b, err := os.ReadFile(*tests)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			fatal(err)
		}
		testOut = string(b)
	}
	in := inputs{set: set, testOut: testOut}
	if *storedFiles != "" {
		if in.stored, err = readStored(strings.Split(*storedFiles, ",")); err != nil {
			fatal(err)
		}
	}
	failed := summarize(os.Stdout, ts, in)
	if len(gs) > 0 {
		fmt.Println()
		fmt.Printf("== goals (%s): not part of the verdict; each says why not yet\n", *goals)
		summarizeGoals(os.Stdout, gs, in)
	}
	if failed > 0 && *strict {
		os.Exit(1)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "benchsum:", err)
	os.Exit(2)
}

func readTargets(path string) ([]target, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ts []target
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 6 {
			return nil, fmt.Errorf("%s:%d: want 6 columns (issue id figure unit limit anchor), have %d", path, n, len(f))
		}
		t := target{f[0], f[1], f[2], f[3], f[4], f[5], n}
		if _, _, err := parseLimit(t.limit); err != nil && t.unit != "test" {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if isRatio(t.limit) == (t.anchor == "-") && t.unit != "test" {
			return nil, fmt.Errorf("%s:%d: a ratio limit needs an anchor and an absolute one none", path, n)
		}
		ts = append(ts, t)
	}
	return ts, sc.Err()
}

// ofUnits keeps the targets of the listed units (all for "").
func ofUnits(ts []target, units string) []target {
	if units == "" {
		return ts
	}
	keep := strings.Split(units, ",")
	var out []target
	for _, t := range ts {
		if slices.Contains(keep, t.unit) {
			out = append(out, t)
		}
	}
	return out
}

func isRatio(limit string) bool { return strings.HasSuffix(limit, "x") }

// parseLimit parses "<=1.3x", "<=150ns", "<=0".
func parseLimit(s string) (v float64, ratio bool, err error) {
	num, ok := strings.CutPrefix(s, "<=")
	if !ok {
		return 0, false, fmt.Errorf("limit %q: want <=R x, <=V or pass", s)
	}
	ratio = strings.HasSuffix(num, "x")
	num = strings.TrimSuffix(strings.TrimSuffix(num, "x"), "ns")
	v, err = strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, false, fmt.Errorf("limit %q: %w", s, err)
	}
	return v, ratio, nil
}

// inputs is what targets are judged on: the run's benchmarks, the tests'
// output and the stored instruction baseline (nil without -stored).
type inputs struct {
	set     *benchdata.Set
	testOut string
	stored  *benchdata.InstrBaseline
}

type row struct {
	issue, id, figure, measured, anchor, ratio, limit, margin, result string
}

// summarize writes the verdict's table and returns the number of failed
// targets.
func summarize(w io.Writer, ts []target, in inputs) int {
	rows, failed := evaluateAll(ts, in)
	writeRows(w, rows)
	pass := len(rows) - failed
	fmt.Fprintf(w, "\n%d of %d targets met, %d not met\n", pass, len(rows), failed)
	return failed
}

// summarizeGoals writes the goals' table: "met" or "not yet", never a
// failure.
func summarizeGoals(w io.Writer, gs []target, in inputs) {
	rows, missed := evaluateAll(gs, in)
	for i := range rows {
		if rows[i].result == "pass" {
			rows[i].result = "met"
		} else {
			rows[i].result = "not yet (" + rows[i].result + ")"
		}
	}
	writeRows(w, rows)
	fmt.Fprintf(w, "\n%d of %d goals met\n", len(rows)-missed, len(rows))
}

func evaluateAll(ts []target, in inputs) (rows []row, failed int) {
	for _, t := range ts {
		for _, r := range evaluate(t, in) {
			if r.result != "pass" {
				failed++
			}
			rows = append(rows, r)
		}
	}
	return rows, failed
}

func writeRows(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "issue\ttarget\tfigure\tmeasured\tanchor (same run)\tratio\tlimit\tmargin\tresult")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.issue, r.id, r.figure, r.measured, r.anchor, r.ratio, r.limit, r.margin, r.result)
	}
	tw.Flush()
}

// judge sets the row's margin and pass/fail for a figure against its limit.
func (r *row) judge(got, limit float64) {
	r.margin = margin(got, limit)
	r.result = "pass"
	if got > limit {
		r.result = "FAIL"
	}
}

// margin is how far a figure may grow before it fails its limit: "+25%"
// for 0.8 against 1.0, "-20%" past it, "exact" where the limit is 0.
func margin(got, limit float64) string {
	if limit == 0 {
		return "exact"
	}
	if got == 0 {
		return "-"
	}
	return fmt.Sprintf("%+.0f%%", (limit/got-1)*100)
}

func evaluate(t target, in inputs) []row {
	set, testOut := in.set, in.testOut
	base := row{issue: t.issue, id: t.id, figure: t.figure, limit: t.limit, anchor: "-", ratio: "-", margin: "-"}
	if t.unit == "test" {
		name := t.figure
		if _, n, ok := strings.Cut(name, ":"); ok {
			name = n
		}
		switch {
		case strings.Contains(testOut, "--- PASS: "+name+" "):
			base.measured, base.result = "test passed", "pass"
		case strings.Contains(testOut, "--- FAIL: "+name+" "):
			base.measured, base.result = "test FAILED", "FAIL"
		default:
			base.measured, base.result = "test not run", "missing"
		}
		return []row{base}
	}
	limit, ratio, _ := parseLimit(t.limit)
	// Only the benchmarks reporting the unit: an instruction count and a
	// timed run of the same benchmark share a name (at other -N).
	var keys []benchdata.Key
	named := set.Match(t.figure)
	for _, k := range named {
		if len(set.Samples[k][t.unit]) > 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		base.measured, base.result = "no such benchmark", "missing"
		if len(named) > 0 {
			base.measured = "no " + t.unit
		}
		return []row{base}
	}
	if t.anchor == "stored" {
		return evaluateStored(base, t, keys, limit, in)
	}
	var anchor float64
	if ratio {
		ak := set.Match(t.anchor)
		switch {
		case len(ak) == 0:
			base.anchor, base.measured, base.result = t.anchor+": no such benchmark", "-", "missing"
			return []row{base}
		case len(ak) > 1:
			base.anchor, base.measured, base.result = t.anchor+": ambiguous", "-", "missing"
			return []row{base}
		}
		vals := set.Samples[ak[0]][t.unit]
		if len(vals) == 0 {
			base.anchor, base.measured, base.result = t.anchor+": no "+t.unit, "-", "missing"
			return []row{base}
		}
		anchor = benchdata.Median(vals)
		base.anchor = ak[0].String() + " " + format(vals, t.unit)
	}
	var rows []row
	for _, k := range keys {
		r := base
		if len(keys) > 1 {
			r.figure = k.String()
		}
		vals := set.Samples[k][t.unit]
		if len(vals) == 0 {
			r.measured, r.result = "no "+t.unit, "missing"
			rows = append(rows, r)
			continue
		}
		m := benchdata.Median(vals)
		r.measured = format(vals, t.unit)
		got := m
		if ratio {
			got = m / anchor
			r.ratio = fmt.Sprintf("%.3fx", got)
		}
		r.judge(got, limit)
		rows = append(rows, r)
	}
	return rows
}

// evaluateStored judges instruction counts against the stored baseline,
// which must come from the same Go release as the run's counts.
func evaluateStored(base row, t target, keys []benchdata.Key, limit float64, in inputs) []row {
	if in.stored == nil {
		base.anchor, base.measured, base.result = "stored: no -stored baseline given", "-", "missing"
		return []row{base}
	}
	if gv := in.set.Config["goversion"]; gv != in.stored.GoVersion {
		base.anchor, base.measured, base.result = fmt.Sprintf("stored: recorded by %s, measured by %q: re-record it", in.stored.GoVersion, gv), "-", "FAIL"
		return []row{base}
	}
	var rows []row
	for _, k := range keys {
		r := base
		r.figure = k.String()
		vals := in.set.Samples[k][t.unit]
		st, ok := in.stored.PerOp[k.String()]
		switch {
		case len(vals) == 0:
			r.measured, r.result = "no "+t.unit, "missing"
		case !ok:
			r.measured, r.result = format(vals, t.unit), "missing"
			r.anchor = "stored: not in the baseline (record it)"
		default:
			got := benchdata.Median(vals) / st
			r.measured = format(vals, t.unit)
			r.anchor = fmt.Sprintf("stored %.0f %s", st, t.unit)
			r.ratio = fmt.Sprintf("%.3fx", got)
			r.judge(got, limit)
		}
		rows = append(rows, r)
	}
	return rows
}

// format shows a median with its unit, the sample size and, when the
// values vary, the 95% confidence interval as benchstat's ±%.
func format(vals []float64, unit string) string {
	s := benchdata.Summary(vals)
	var v string
	switch unit {
	case "ns/op":
		v = fmtNs(s.Center)
	default:
		if s.Center >= 1e4 { // a count: every digit, no exponent
			v = strconv.FormatFloat(s.Center, 'f', -1, 64)
		} else {
			v = strconv.FormatFloat(s.Center, 'g', 4, 64)
		}
		v += " " + unit
	}
	if s.Lo != s.Hi && len(vals) > 1 {
		v += " " + s.PctRangeString()
	}
	return fmt.Sprintf("%s n=%d", v, len(vals))
}

func fmtNs(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.3fs", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.3fms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.3fµs", ns/1e3)
	}
	return fmt.Sprintf("%.2fns", ns)
}
