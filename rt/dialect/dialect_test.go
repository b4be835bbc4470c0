package dialect

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReleaseInNames(t *testing.T) {
	for name, want := range map[string]int{
		"7f..-7f.. r-xp 00000000 fe:01 123 /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1": 14,
		"/usr/lib/x86_64-linux-gnu/libLLVM-15.0.6.so.1":                               15,
		"/usr/lib/x86_64-linux-gnu/libLLVM.so.19.1":                                   19,
		"/opt/llvm/lib/libLLVM.so.22.1git":                                            22,
		"/usr/lib/libc.so.6":                                                          0,
	} {
		assert.Equal(t, want, releaseInLibName([]byte(name)), name)
	}
	for path, want := range map[string]int{
		"/usr/lib/llvm-14/bin/llvm-jitlink": 14,
		"/usr/bin/llvm-jitlink-19":          19,
		"/opt/llvm/bin/clang-repl":          0,
	} {
		assert.Equal(t, want, releaseInPath(path), path)
	}
	assert.Equal(t, 19, releaseInImage([]byte("xxLLVM version \x00LLVM version 19.1.7\n")))
	assert.Equal(t, 0, releaseInImage([]byte("no version here")))
}

func TestParseAndChoose(t *testing.T) {
	for in, want := range map[string]*Dialect{"14": LLVM14, "15": LLVM14, "16.0.6": LLVM14, "19": LLVM19, " 22 ": LLVM22} {
		d, err := Parse(in)
		require.NoError(t, err, in)
		assert.Same(t, want, d, in)
	}
	for _, in := range []string{"13", "17", "x", ""} {
		_, err := Parse(in)
		assert.ErrorContains(t, err, "supported: 14, 15, 16, 19, 22", in)
	}
	d, ev, err := Choose("", 0)
	require.NoError(t, err)
	assert.Same(t, Latest, d)
	assert.Contains(t, ev.How, "default")
	d, ev, err = Choose("19", 0)
	require.NoError(t, err)
	assert.Same(t, LLVM19, d)
	assert.Equal(t, 19, ev.Release)
}

// TestReleaseOfRealControllers identifies each installed LLVM's lli (a
// controller that waits on its standard input) from /proc.
func TestReleaseOfRealControllers(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("dialect: /proc is Linux's")
	}
	found := 0
	for _, n := range []int{14, 15, 16, 19, 22} {
		lli := fmt.Sprintf("/usr/lib/llvm-%d/bin/lli", n)
		if _, err := os.Stat(lli); err != nil {
			continue
		}
		found++
		cmd := exec.Command(lli)
		stdin, err := cmd.StdinPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		var r int
		var how string
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			// Once the loader has mapped libLLVM, the maps name it.
			if r, how = ReleaseOfProcess(cmd.Process.Pid); r > 0 && strings.Contains(how, "mapped") {
				break
			}
		}
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		assert.Equal(t, n, r, "%s: %s", lli, how)
		t.Logf("lli %d: %s", n, how)
	}
	if found == 0 {
		t.Skip("dialect: no LLVM installed")
	}
}

// TestReleaseInImageOfLibLLVM stands in for a static build: libLLVM holds
// the same --version text a statically linked tool does.
func TestReleaseInImageOfLibLLVM(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("dialect: Linux only")
	}
	for _, n := range []int{14, 19, 22} {
		lib := fmt.Sprintf("/usr/lib/llvm-%d/lib/libLLVM.so", n)
		if _, err := os.Stat(lib); err != nil {
			continue
		}
		start := time.Now()
		assert.Equal(t, n, releaseInFile(lib), lib)
		t.Logf("%s: %v", lib, time.Since(start))
	}
}
