package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orcgo/orcrt/bench/internal/benchdata"
)

const results = `pkg: github.com/orcgo/orcrt/bench/spsbench
BenchmarkSPS/op=encode/shape=bytes1MiB-2 	10	110 ns/op	0 allocs/op
BenchmarkSPS/op=encode/shape=bytes1MiB-2 	10	120 ns/op	0 allocs/op
BenchmarkSPS/op=encode/shape=bytes1MiB-2 	10	130 ns/op	1 allocs/op
BenchmarkCopy/size=1MiB-2                	10	100 ns/op	0 allocs/op
BenchmarkCopy/size=1MiB-2                	10	100 ns/op	0 allocs/op
`

func TestSummarize(t *testing.T) {
	dir := t.TempDir()
	targets := filepath.Join(dir, "targets.txt")
	if err := os.WriteFile(targets, []byte(`# comment
6 ratio-pass spsbench:SPS/op=encode/shape=bytes1MiB ns/op <=1.3x spsbench:Copy/size=1MiB
6 ratio-fail spsbench:SPS/op=encode/shape=bytes1MiB ns/op <=1.1x spsbench:Copy/size=1MiB
6 abs-pass   spsbench:SPS/op=encode/shape=bytes1MiB ns/op <=120ns -
6 allocs     spsbench:SPS/op=encode/shape=* allocs/op <=0 -
6 missing    spsbench:SPS/op=decode/shape=u64 ns/op <=1 -
6 a-test     slab:TestX test pass -
`), 0o644); err != nil {
		t.Fatal(err)
	}
	ts, err := readTargets(targets)
	if err != nil {
		t.Fatal(err)
	}
	set := benchdata.New()
	if err := set.Read(strings.NewReader(results), "r"); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	failed := summarize(&out, ts, inputs{set: set, testOut: "--- PASS: TestX (0.01s)\n"})
	// ratio-fail (1.2x > 1.1x) and missing; allocs median is 0: passes.
	if failed != 2 {
		t.Errorf("failed = %d, want 2\n%s", failed, out.String())
	}
	// 1.2x against 1.3x may grow 8%; 1.2x against 1.1x is 8% past it.
	for _, want := range []string{"ratio-pass", "1.200x", "+8%", "-8%", "exact", "FAIL", "missing", "test passed", "4 of 6 targets met"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestSummarizeGoals(t *testing.T) {
	set := benchdata.New()
	if err := set.Read(strings.NewReader(results), "r"); err != nil {
		t.Fatal(err)
	}
	gs := []target{
		{issue: "6", id: "met", figure: "spsbench:SPS/op=encode/shape=bytes1MiB", unit: "ns/op", limit: "<=1.3x", anchor: "spsbench:Copy/size=1MiB"},
		{issue: "6", id: "far", figure: "spsbench:SPS/op=encode/shape=bytes1MiB", unit: "ns/op", limit: "<=1.0x", anchor: "spsbench:Copy/size=1MiB"},
	}
	var out bytes.Buffer
	summarizeGoals(&out, gs, inputs{set: set})
	for _, want := range []string{" met", "not yet (FAIL)", "1 of 2 goals met"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestStored: instruction counts against the stored baseline, which must
// come from the run's Go release and name the figure.
func TestStored(t *testing.T) {
	const counts = `goversion: go1.26.8
pkg: github.com/orcgo/orcrt/bench/spsbench
BenchmarkSPS/op=decode/shape=finalize 1 2300 instructions/op
BenchmarkSPS/op=encode/shape=finalize 1 4950 instructions/op
BenchmarkSPS/op=decode/shape=new 1 10 instructions/op
`
	set := benchdata.New()
	if err := set.Read(strings.NewReader(counts), "instr.txt"); err != nil {
		t.Fatal(err)
	}
	stored := &benchdata.InstrBaseline{Reason: "r", GoVersion: "go1.26.8", PerOp: map[string]float64{
		"spsbench:SPS/op=decode/shape=finalize": 2133,
		"spsbench:SPS/op=encode/shape=finalize": 4942,
	}}
	ts := []target{{issue: "23", id: "instr", figure: "spsbench:SPS/op=*/shape=*", unit: benchdata.InstrUnit, limit: "<=1.05x", anchor: "stored"}}
	var out bytes.Buffer
	// decode +7.8% fails, encode +0.2% passes, the new one is missing.
	if failed := summarize(&out, ts, inputs{set: set, stored: stored}); failed != 2 {
		t.Errorf("failed = %d, want 2\n%s", failed, out.String())
	}
	for _, want := range []string{"1.078x", "FAIL", "1.002x", "not in the baseline"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	stored.GoVersion = "go1.25.0"
	out.Reset()
	if failed := summarize(&out, ts, inputs{set: set, stored: stored}); failed != 1 || !strings.Contains(out.String(), "re-record") {
		t.Errorf("another Go release's baseline: failed = %d\n%s", failed, out.String())
	}
	out.Reset()
	if failed := summarize(&out, ts, inputs{set: set}); failed != 1 || !strings.Contains(out.String(), "no -stored") {
		t.Errorf("no baseline: failed = %d\n%s", failed, out.String())
	}
}

func TestReadTargetsErrors(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range []string{
		"6 x a ns/op <=1.3x\n",         // 5 columns
		"6 x a ns/op <=1.3x -\n",       // ratio without anchor
		"6 x a ns/op <=150ns anchor\n", // absolute with anchor
		"6 x a ns/op 1.3x anchor\n",    // no <=
		"6 x a ns/op <=fast -\n",       // not a number
	} {
		f := filepath.Join(dir, "t.txt")
		if err := os.WriteFile(f, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readTargets(f); err == nil {
			t.Errorf("readTargets accepted %q", bad)
		}
	}
	// The repository's own tables parse, and no id is in both.
	ids := map[string]string{}
	for _, f := range []string{"../../targets.txt", "../../goals.txt"} {
		ts, err := readTargets(f)
		if err != nil {
			t.Error(err)
		}
		for _, tg := range ts {
			if prev, ok := ids[tg.id]; ok {
				t.Errorf("%s: id %s already in %s", f, tg.id, prev)
			}
			ids[tg.id] = f
		}
	}
}
