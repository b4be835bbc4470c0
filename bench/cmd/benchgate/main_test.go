package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orcgo/orcrt/bench/internal/benchdata"
)

func TestJudge(t *testing.T) {
	c := &config{threshold: 0.10, alpha: 0.05}
	base := []float64{100, 101, 99, 100, 102, 98, 100, 101, 99, 100}
	scale := func(f float64) []float64 {
		out := make([]float64, len(base))
		for i, v := range base {
			out[i] = v * f
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		unit  string
		b, h  []float64
		fail  bool
		words string
	}{
		{"30% slower", "ns/op", base, scale(1.3), true, "FAIL (slower)"},
		{"5% slower: significant, within threshold", "ns/op", base, scale(1.05), false, "within threshold"},
		{"same", "ns/op", base, base, false, "no significant change"},
		{"faster", "ns/op", base, scale(0.7), false, "faster"},
		{"one more allocation", "allocs/op", []float64{2, 2, 2}, []float64{3, 3, 3}, true, "more allocations"},
		{"same allocations", "allocs/op", []float64{2, 2, 2}, []float64{2, 2, 2}, false, "ok"},
		{"varying allocations within range", "allocs/op", []float64{0, 1, 0}, []float64{1, 0, 1}, false, "varies"},
		{"varying allocations above range", "allocs/op", []float64{0, 1, 0}, []float64{2, 2, 1}, true, "more allocations"},
		{"more bytes, deterministic", "B/op", []float64{64, 64}, []float64{80, 80}, true, "more bytes"},
		{"more bytes, varying", "B/op", []float64{64, 70}, []float64{80, 90}, false, "reported only"},
	} {
		line, fail := judge(c, tc.unit, tc.b, tc.h)
		if fail != tc.fail || !strings.Contains(line, tc.words) {
			t.Errorf("%s: judge = %q, %v; want fail=%v and %q", tc.name, line, fail, tc.fail, tc.words)
		}
	}
}

func TestParseThreshold(t *testing.T) {
	for in, want := range map[string]float64{"10%": 0.10, "0.1": 0.1, "25%": 0.25} {
		if got, err := parseThreshold("-threshold", in); err != nil || got != want {
			t.Errorf("parseThreshold(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "fast", "-5%"} {
		if _, err := parseThreshold("-threshold", bad); err == nil {
			t.Errorf("parseThreshold(%q) accepted", bad)
		}
	}
}

func TestTimeGated(t *testing.T) {
	c := &config{allocsOnlyKeys: map[string]bool{}}
	cycle := benchdata.Key{Pkg: "allocbench", Name: "MemoryManager/op=alloc-cycle", Procs: 2}
	actions := benchdata.Key{Pkg: "allocbench", Name: "AllocActions/n=4", Procs: 2}
	if !timeGated(c, cycle) {
		t.Error("without allocs entries every benchmark's time is gated")
	}
	c.markAllocsOnly([]byte("pkg: github.com/orcgo/orcrt/bench/allocbench\nBenchmarkMemoryManager/op=alloc-cycle-2 \t 100 \t 5000 ns/op \t 248 B/op \t 6 allocs/op\n"))
	if timeGated(c, cycle) {
		t.Error("alloc-cycle came from an allocs entry: its time must not be gated")
	}
	if !timeGated(c, actions) {
		t.Error("AllocActions came from no allocs entry: its time is gated")
	}
}

// TestConfirmed: a time failure stands only if the second run's samples
// fail too; pkgsOf finds the packages to run again.
func TestConfirmed(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, ns ...int) string {
		var b strings.Builder
		b.WriteString("pkg: github.com/orcgo/orcrt/bench/wirebench\n")
		for _, v := range ns {
			fmt.Fprintf(&b, "BenchmarkRoundTrip/call=empty-2 \t 1000 \t %d ns/op\n", v)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	same := []int{100, 101, 99, 100, 102, 98, 100, 101, 99, 100}
	slow := []int{130, 131, 129, 130, 132, 128, 130, 131, 129, 130}
	c := &config{threshold: 0.10, alpha: 0.05, pkgs: []pkgSpec{{dir: "bench/spsbench", bench: "."}, {dir: "bench/wirebench", bench: "."}}}
	base, head, err := load(write("b1", same...), write("h1", slow...))
	if err != nil {
		t.Fatal(err)
	}
	failed, slower := verdicts(c, base, head)
	if failed != 1 || len(slower) != 1 {
		t.Fatalf("first run: %d failures, %d on time; want 1, 1", failed, len(slower))
	}
	if got := pkgsOf(c, slower, []int{0, 1}); len(got) != 1 || got[0] != 1 {
		t.Fatalf("pkgsOf = %v, want [1] (wirebench)", got)
	}
	base, head, _ = load(write("b2", same...), write("h2", same...))
	if n := confirmed(c, slower, base, head); n != 0 {
		t.Errorf("a second run with no change confirmed %d failure(s)", n)
	}
	base, head, _ = load(write("b3", same...), write("h3", slow...))
	if n := confirmed(c, slower, base, head); n != 1 {
		t.Errorf("a second run as slow confirmed %d failure(s), want 1", n)
	}
	base, head, _ = load(write("b4", same...), write("h4"))
	if n := confirmed(c, slower, base, head); n != 1 {
		t.Errorf("a benchmark missing from the second run: %d, want the failure to stand", n)
	}
}
