package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestInstrEnviron(t *testing.T) {
	env := instrEnviron(
		[]string{"HOME=/h", "GOMAXPROCS=8", "GODEBUG=madvdontneed=1,asyncpreemptoff=0"}, "",
		[]string{"ORCRT_LLVM=22", "GODEBUG=cpu.avx2=off"})
	want := "GODEBUG=madvdontneed=1,asyncpreemptoff=1,cpu.rdtscp=off,cpu.avx2=off"
	if got := env[len(env)-1]; got != want {
		t.Errorf("GODEBUG: got %s, want %s", got, want)
	}
	if n := slices.Index(env, "GOMAXPROCS=1"); n < slices.Index(env, "GOMAXPROCS=8") {
		t.Errorf("the gate's GOMAXPROCS=1 must come after the inherited one (exec keeps the last): %q", env)
	}
	if !slices.Contains(env, "HOME=/h") || !slices.Contains(env, "ORCRT_LLVM=22") {
		t.Errorf("inherited or entry variables lost: %q", env)
	}
	if got := instrEnviron(nil, archARM64, nil); got[len(got)-1] != "GODEBUG=asyncpreemptoff=1" {
		t.Errorf("arm64: %q; arm64's runtime has no cpu.rdtscp", got)
	}
	if got := mergeGODEBUG([]string{"a=1", "", "b=2", "a=3"}); got != "a=3,b=2" {
		t.Errorf("mergeGODEBUG = %q, want a=3,b=2", got)
	}
}

// TestCountedProgramsAvoidRDTSCP runs a program that reaches the
// runtime's cputicks often through the gate's own valgrind command and
// checks that cputicks ran, never its RDTSCP: valgrind 3.19 advertises
// RDTSCP on every host and dies of SIGILL on it on some (issue 41). On a
// host where valgrind executes it, the per-line counts still show it.
func TestCountedProgramsAvoidRDTSCP(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("RDTSCP is x86-64's; the gate counts amd64 programs with valgrind")
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind not found (make deps installs it)")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "cputicks")
	if err := buildCommand(".", "testdata/cputicks", "", bin); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "cachegrind.out")
	cmd := cachegrindCmd(tmp, out, nil, bin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("valgrind cputicks: %v\n%s", err, stderr.Bytes())
	}
	line := rdtscpLine(t, bin)
	counts := cachegrindLineCounts(t, out, "runtime.cputicks.abi0")
	total := 0
	for _, n := range counts {
		total += n
	}
	if total == 0 {
		t.Fatalf("cachegrind counted no instruction of runtime.cputicks: the program no longer reaches it")
	}
	if counts[line] > 0 {
		t.Errorf("RDTSCP (asm_amd64.s:%d) ran %d times under the gate's environment %q", line, counts[line], cmd.Env[len(cmd.Env)-1])
	}
	t.Logf("runtime.cputicks: %d instructions, RDTSCP (line %d) %d times", total, line, counts[line])
}

var rdtscpAt = regexp.MustCompile(`^\s*\S+\.s:(\d+)\s.*\bRDTSCP\b`)

// rdtscpLine returns the source line of the RDTSCP in bin's cputicks.
func rdtscpLine(t *testing.T, bin string) int {
	b, err := exec.Command("go", "tool", "objdump", "-s", `^runtime\.cputicks\.abi0$`, bin).Output()
	if err != nil {
		t.Fatalf("go tool objdump: %v", err)
	}
	for l := range strings.Lines(string(b)) {
		if m := rdtscpAt.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			return n
		}
	}
	t.Skip("this runtime's cputicks has no RDTSCP: nothing to check")
	return 0
}

// cachegrindLineCounts returns fn's instruction counts by source line
// from a cachegrind output file.
func cachegrindLineCounts(t *testing.T, path, fn string) map[int]int {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counts := map[int]int{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if name, ok := strings.CutPrefix(l, "fn="); ok {
			in = name == fn
			continue
		}
		if f := strings.Fields(l); in && len(f) == 2 {
			line, err1 := strconv.Atoi(f[0])
			n, err2 := strconv.Atoi(f[1])
			if err1 == nil && err2 == nil {
				counts[line] += n
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return counts
}

// TestQemuinsnCounts builds the qemuinsn plugin and counts a loop of n,
// 3n and 9n iterations through the gate's own arm64 path: the counts'
// differences must grow threefold, as the loop's instructions do.
func TestQemuinsnCounts(t *testing.T) {
	for _, tool := range []string{"qemu-aarch64", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found (make arm64-deps installs it)", tool)
		}
	}
	tmp := t.TempDir()
	c := &config{qemuPlugin: filepath.Join(tmp, "libqemuinsn.so"), arm64Root: tmp}
	src := filepath.Join("..", "..", "qemuinsn", "qemuinsn.c")
	if b, err := exec.Command("gcc", "-O2", "-Wall", "-Werror", "-shared", "-fPIC", "-fvisibility=hidden", "-o", c.qemuPlugin, src).CombinedOutput(); err != nil {
		t.Fatalf("building qemuinsn: %v\n%s", err, b)
	}
	bin := filepath.Join(tmp, "spin")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/spin")
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	var counts []float64
	for _, n := range []int{3000000, 9000000, 27000000} {
		v, err := countInstructions(c, archARM64, tmp, nil, nil, bin, strconv.Itoa(n))
		if err != nil {
			t.Fatal(err)
		}
		counts = append(counts, v)
	}
	d1, d2 := counts[1]-counts[0], counts[2]-counts[1]
	t.Logf("counts %.0f; per iteration %.3f and %.3f", counts, d1/6e6, d2/18e6)
	if d1 < 6e6 || d2/d1 < 2.97 || d2/d1 > 3.03 {
		t.Errorf("counts %.0f: the differences %.0f and %.0f are not in ratio 3", counts, d1, d2)
	}
	if _, err := countInstructions(c, archARM64, tmp, nil, nil, bin, "x"); err == nil {
		t.Error("a program exiting 2 gave a count")
	}
}
