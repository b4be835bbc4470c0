package spsbench

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/orcgo/orcrt/internal/llvmtools"
)

const (
	llvmHeader = "/usr/lib/llvm-22/include/llvm/ExecutionEngine/Orc/Shared/SimplePackedSerialization.h"
	benchSrc   = "testdata/llvmbench.cpp"
)

// buildLLVMBench builds testdata/llvmbench.cpp with clang++-22 -O2 against
// LLVM 22 (cached by source/toolchain hash in the user cache directory). It
// skips when the toolchain is missing, unless ORCRT_REQUIRE_LLVM=1, when it
// fails: a skip must not hide a broken setup.
func buildLLVMBench(tb testing.TB) string {
	tb.Helper()
	var missing []string
	cxx, err := exec.LookPath("clang++-22")
	if err != nil {
		missing = append(missing, "clang++-22")
	}
	llvmConfig, err := exec.LookPath("llvm-config-22")
	if err != nil {
		missing = append(missing, "llvm-config-22")
	}
	if _, err := os.Stat(llvmHeader); err != nil {
		missing = append(missing, llvmHeader)
	}
	if len(missing) > 0 {
		llvmtools.Missing(tb, "LLVM 22 toolchain not available: missing %s", strings.Join(missing, ", "))
	}
	src, err := os.ReadFile(benchSrc)
	if err != nil {
		tb.Fatal(err)
	}
	flags := func(args ...string) []string {
		out, err := exec.Command(llvmConfig, args...).Output()
		if err != nil {
			tb.Fatalf("llvm-config %v: %v", args, err)
		}
		return strings.Fields(string(out))
	}
	cxxflags, ldflags := flags("--cxxflags"), flags("--ldflags", "--libs")
	version, err := exec.Command(cxx, "--version").Output()
	if err != nil {
		tb.Fatal(err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%q\x00%q\x00-O2", src, version, cxxflags, ldflags)
	dir := tb.TempDir()
	if cache, err := os.UserCacheDir(); err == nil {
		dir = filepath.Join(cache, "orcrt", "spsbench")
	}
	bin := filepath.Join(dir, "llvmbench-"+hex.EncodeToString(h.Sum(nil))[:24])
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	tmp := fmt.Sprintf("%s.tmp%d", bin, os.Getpid())
	args := append(append(append([]string{}, cxxflags...), "-O2", "-o", tmp, benchSrc), ldflags...)
	if out, err := exec.Command(cxx, args...).CombinedOutput(); err != nil {
		tb.Fatalf("building %s: %v\n%s", benchSrc, err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		tb.Fatal(err)
	}
	return bin
}

// llvmServer is one running "llvmbench serve" process, shared by the
// benchmarks and stopped by TestMain.
type llvmServer struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

var (
	serverMu sync.Mutex
	server   *llvmServer
)

func llvmBench(tb testing.TB) *llvmServer {
	tb.Helper()
	bin := buildLLVMBench(tb)
	serverMu.Lock()
	defer serverMu.Unlock()
	if server != nil {
		return server
	}
	cmd := exec.Command(bin, "serve")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	server = &llvmServer{cmd: cmd, in: in, out: bufio.NewReader(out)}
	return server
}

func stopLLVMServer() {
	serverMu.Lock()
	defer serverMu.Unlock()
	if server != nil {
		server.in.Close()
		server.cmd.Wait()
		server = nil
	}
}

// run makes the C++ side run op n times and returns the total nanoseconds
// it measured around its loop.
func (s *llvmServer) run(op string, n int) (int64, error) {
	if _, err := fmt.Fprintf(s.in, "%s %d\n", op, n); err != nil {
		return 0, err
	}
	line, err := s.out.ReadString('\n')
	if err != nil {
		return 0, fmt.Errorf("llvmbench: %w", err)
	}
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != "ns" {
		return 0, fmt.Errorf("llvmbench: unexpected reply %q", line)
	}
	return strconv.ParseInt(f[1], 10, 64)
}

func TestMain(m *testing.M) {
	code := m.Run()
	stopLLVMServer()
	os.Exit(code)
}

// BenchmarkSPSLLVM is LLVM 22's C++ codec on the finalize shape (see
// testdata/llvmbench.cpp for exactly what is measured). The loop runs
// inside the C++ process: each round asks it for b.N iterations, so this
// benchmark uses b.N rather than b.Loop, and reports the C++-measured time
// as ns/op (and MB/s from it), replacing the Go-side wall time, which
// includes the pipe round trip.
func BenchmarkSPSLLVM(b *testing.B) {
	size := func() int { fr := finalizeRequest(); return fr.Size() }()
	for _, op := range []string{"encode", "decode"} {
		b.Run("op="+op+"/shape=finalize", func(b *testing.B) {
			s := llvmBench(b)
			b.ReportAllocs()
			b.SetBytes(int64(size))
			b.ResetTimer()
			ns, err := s.run(op, b.N)
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			perOp := float64(ns) / float64(b.N)
			b.ReportMetric(perOp, "ns/op")
			b.ReportMetric(float64(size)/perOp*1e9/1e6, "MB/s")
		})
	}
}

// TestLLVMBenchMessageMatches checks that the C++ benchmark works on the
// very bytes the Go benchmark encodes.
func TestLLVMBenchMessageMatches(t *testing.T) {
	bin := buildLLVMBench(t)
	out, err := exec.Command(bin, "bytes").Output()
	if err != nil {
		t.Fatal(err)
	}
	want, err := hex.DecodeString(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	fr := finalizeRequest()
	if got := fr.Append(nil); !bytes.Equal(got, want) {
		t.Fatalf("Go and C++ finalize messages differ (%d vs %d bytes)", len(got), len(want))
	}
	s := llvmBench(t)
	for _, op := range []string{"encode", "decode"} {
		if ns, err := s.run(op, 10); err != nil || ns <= 0 {
			t.Fatalf("llvmbench %s: %d, %v", op, ns, err)
		}
	}
}
