package spsfuzz

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/orcgo/orcrt/internal/llvmtools"
)

const (
	oracleSrc    = "llvmoracle/oracle.cpp"
	oracleHeader = "llvmoracle/oracle.h"
	llvmInclude  = "/usr/lib/llvm-22/include"
	llvmLibDir   = "/usr/lib/llvm-22/lib"
)

// buildOracle compiles llvmoracle/oracle.cpp as a program with clang++-22
// (cached in the user cache directory by source and compiler) and returns
// its path. A missing toolchain skips, or fails under ORCRT_REQUIRE_LLVM=1.
func buildOracle(t *testing.T) string {
	t.Helper()
	cxx, err := exec.LookPath("clang++-22")
	if err != nil {
		llvmtools.Missing(t, "clang++-22 not found (Debian's clang-22)")
	}
	for _, p := range []string{llvmInclude + "/llvm/ExecutionEngine/Orc/Shared/SimplePackedSerialization.h", llvmLibDir + "/libLLVM-22.so"} {
		if _, err := os.Stat(p); err != nil {
			llvmtools.Missing(t, "%s not found (Debian's llvm-22-dev)", p)
		}
	}
	src, err := os.ReadFile(oracleSrc)
	if err != nil {
		t.Fatal(err)
	}
	hdr, err := os.ReadFile(oracleHeader)
	if err != nil {
		t.Fatal(err)
	}
	version, err := exec.Command(cxx, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", cxx, err)
	}
	sum := sha256.Sum256(bytes.Join([][]byte{src, hdr, version}, []byte{0}))
	dir := t.TempDir()
	if cache, err := os.UserCacheDir(); err == nil {
		dir = filepath.Join(cache, "orcrt", "llvmoracle")
	}
	bin := filepath.Join(dir, "oracle-"+hex.EncodeToString(sum[:12]))
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	obj, out := filepath.Join(tmp, "oracle.o"), filepath.Join(tmp, "oracle")
	for _, args := range [][]string{
		{"-std=c++17", "-O1", "-fsanitize=bool", "-fsanitize-minimal-runtime", "-DORCRT_ORACLE_MAIN",
			"-I" + llvmInclude, "-c", "-o", obj, oracleSrc},
		{"-o", out, obj, "-L" + llvmLibDir, "-lLLVM-22", "-Wl,-rpath," + llvmLibDir},
	} {
		if b, err := exec.Command(cxx, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", cxx, strings.Join(args, " "), err, b)
		}
	}
	if err := os.Rename(out, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// corpusInputs returns the seeds and every input checked in under
// testdata/fuzz/ (each target's regression inputs, FuzzLLVM's included),
// each with a name for messages.
func corpusInputs(t *testing.T) (names []string, inputs [][]byte) {
	t.Helper()
	seeds, err := Seeds(".")
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range seeds {
		names = append(names, fmt.Sprintf("seed-%d", i))
		inputs = append(inputs, s)
	}
	files, err := filepath.Glob("testdata/fuzz/*/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in, err := corpusFile(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		names = append(names, f)
		inputs = append(inputs, in)
	}
	return names, inputs
}

// corpusFile decodes a go test corpus file holding one []byte.
func corpusFile(b []byte) ([]byte, error) {
	rest, ok := bytes.CutPrefix(b, []byte("go test fuzz v1\n"))
	if !ok {
		return nil, fmt.Errorf("spsfuzz: not a go test corpus file")
	}
	line := strings.TrimSpace(string(rest))
	lit, ok := strings.CutPrefix(line, "[]byte(")
	if !ok || !strings.HasSuffix(lit, ")") {
		return nil, fmt.Errorf("spsfuzz: corpus file does not hold one []byte: %.40q", line)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
	if err != nil {
		return nil, fmt.Errorf("spsfuzz: corpus file: %w", err)
	}
	return []byte(s), nil
}

func hexOrDash(b []byte) string {
	if len(b) == 0 {
		return "-"
	}
	return hex.EncodeToString(b)
}

// TestLLVMOracle is FuzzLLVM over the checked-in corpora, with LLVM's
// side as a program (llvmoracle/oracle.cpp built with -DORCRT_ORACLE_MAIN):
// orcrt and LLVM 22 agree on every input of every covered shape, and the
// oracle covers exactly the shapes OracleExcluded leaves out.
func TestLLVMOracle(t *testing.T) {
	bin := buildOracle(t)

	out, err := exec.Command(bin, "shapes").Output()
	if err != nil {
		t.Fatalf("oracle shapes: %v", err)
	}
	have := strings.Fields(string(out))
	want := OracleShapes()
	slices.Sort(have)
	slices.Sort(want)
	if !slices.Equal(have, want) {
		t.Fatalf("the oracle covers %v\nspsfuzz expects it to cover every shape but OracleExcluded: %v", have, want)
	}
	for name := range OracleExcluded {
		if !slices.Contains(ShapeNames(), name) {
			t.Errorf("OracleExcluded names %q, which is no shape", name)
		}
	}

	names, inputs := corpusInputs(t)
	var stdin bytes.Buffer
	var queries []OracleQuery
	var which []string
	for i, in := range inputs {
		q, ok := Query(in)
		if !ok {
			continue
		}
		ok1 := "0"
		if q.OK {
			ok1 = "1"
		}
		fmt.Fprintf(&stdin, "%s %s %s %d %s\n", q.Shape, hexOrDash(q.Msg), ok1, q.Consumed, hexOrDash(q.Enc))
		queries = append(queries, q)
		which = append(which, names[i])
	}
	cmd := exec.Command(bin, "check")
	cmd.Stdin = &stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	res, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle check: %v\n%s", err, stderr.Bytes())
	}
	sc := bufio.NewScanner(bytes.NewReader(res))
	sc.Buffer(nil, 1<<20)
	type count struct{ accepted, rejected, undefined int }
	counts := map[string]*count{}
	for _, s := range want {
		counts[s] = &count{}
	}
	i, disagreements := 0, 0
	for ; sc.Scan(); i++ {
		if i >= len(queries) {
			t.Fatalf("the oracle answered more lines than it was given")
		}
		q, line := queries[i], sc.Text()
		c := counts[q.Shape]
		switch {
		case line == "agree" && q.OK:
			c.accepted++
		case line == "agree":
			c.rejected++
		case line == Undefined:
			c.undefined++
		default:
			disagreements++
			if disagreements <= 20 {
				t.Errorf("%s (%s): orcrt and LLVM 22 disagree on %s: %s\n  orcrt: ok=%t consumed %d re-encoding %x",
					which[i], q.Shape, hexOrDash(q.Msg), line, q.OK, q.Consumed, q.Enc)
			}
		}
	}
	if i != len(queries) {
		t.Fatalf("the oracle answered %d of %d inputs", i, len(queries))
	}
	if disagreements > 20 {
		t.Errorf("... %d disagreements in all", disagreements)
	}
	var summary strings.Builder
	judged := 0
	for _, s := range want {
		c := counts[s]
		judged += c.accepted + c.rejected
		fmt.Fprintf(&summary, "  %-26s %4d accepted %4d rejected %3d undefined\n", s, c.accepted, c.rejected, c.undefined)
		if c.accepted == 0 {
			t.Errorf("shape %s: no input of the corpus decodes, so the oracle never compares a value", s)
		}
	}
	t.Logf("%d inputs judged by LLVM 22 over %d shapes (%d inputs left out: excluded shapes or empty):\n%s",
		judged, len(want), len(inputs)-len(queries), summary.String())
}
