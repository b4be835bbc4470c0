package dialect

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
		"/usr/lib/x86_64-linux-gnu/libLLVM.so.23.1":                                   23,
		"/usr/lib/llvm-23/lib/libLLVM-23.so":                                          23,
		"/opt/conda/lib/libLLVM-23.1.so":                                              23,
		"/opt/llvm/lib/libLLVM.so.24.0git":                                            24,
		"/usr/lib/libc.so.6":                                                          0,
	} {
		assert.Equal(t, want, releaseInLibName([]byte(name)), name)
	}
	for path, want := range map[string][2]int{ // install directory, name suffix
		"/usr/lib/llvm-14/bin/llvm-jitlink":   {14, 0},
		"/usr/bin/llvm-jitlink-19":            {0, 19},
		"/opt/llvm/bin/clang-repl":            {0, 0},
		"/src/llvm-project/build/bin/lli":     {0, 0},
		"/usr/lib/llvm-22/bin/llvm-jitlink-2": {22, 2},
		"/usr/lib/llvm-23/bin/clang-repl":     {23, 0},
		"/usr/bin/llvm-jitlink-23":            {0, 23},
	} {
		assert.Equal(t, want[0], releaseInInstallDir(path), path)
		assert.Equal(t, want[1], releaseInNameSuffix(path), path)
	}
	for path, want := range map[string]int{ // LLVM's own release directories
		"/opt/LLVM-19.1.7-Linux-X64/bin/llvm-jitlink":                              19,
		"/home/u/LLVM-20.1.0-Linux-ARM64/bin/lli":                                  20,
		"/opt/clang+llvm-18.1.8-x86_64-linux-gnu-ubuntu-18.04/bin/llvm-jitlink":    18,
		"/x/clang+llvm-14.0.0-x86_64-linux-gnu-ubuntu-18.04/bin/clang-repl":        14,
		"/src/llvm-project-19.1.7.src/build/bin/llvm-jitlink":                      19,
		"/src/llvm-project-llvmorg-22.1.8/build/bin/llvm-jitlink":                  22,
		"/src/llvmorg-16.0.6/build/bin/lli":                                        16,
		"/src/llvm-project/build/bin/llvm-jitlink":                                 0,
		"/opt/LLVM-tools/bin/llvm-jitlink":                                         0,
		"/opt/LLVM-19/bin/llvm-jitlink":                                            0, // no MAJOR.MINOR
		"/opt/bin/LLVM-19.1.7-Linux-X64":                                           0, // the executable's own name
		"/usr/lib/llvm-19/bin/llvm-jitlink":                                        0, // an install directory, not a release's
		"/home/clang+llvm-x/LLVM-22.1.8-Linux-X64/clang+llvm-1.0/bin/llvm-jitlink": 22,
	} {
		assert.Equal(t, want, releaseInReleaseDir(path), path)
	}
	for img, want := range map[string]struct {
		release int
		linksCL bool
	}{
		"xxLLVM version \x00LLVM version 19.1.7\n":                             {19, true},
		"\x00LLVM version 23.1.3\n  Optimized build.":                          {23, true},
		"LLVM version 24.0.0git\x00":                                           {24, true},
		"no version here":                                                      {0, false},
		"version \x00" + string(versionOptionDesc()) + "\x00LLVM\x00 version ": {0, true}, // a static build
		string(versionOptionDesc()[1:]):                                        {0, false},
	} {
		r, linksCL := scanImage([]byte(img))
		assert.Equal(t, want.release, r, img)
		assert.Equal(t, want.linksCL, linksCL, img)
	}
}

func TestParseAndChoose(t *testing.T) {
	for in, want := range map[string]*Dialect{"14": LLVM14, "15": LLVM14, "16.0.6": LLVM14, "19": LLVM19, " 22 ": LLVM22, "23.1.3": LLVM23} {
		d, err := Parse(in)
		require.NoError(t, err, in)
		assert.Same(t, want, d, in)
	}
	for _, in := range []string{"13", "17", "x", "", "99"} {
		_, err := Parse(in)
		assert.ErrorContains(t, err, "supported: "+Supported(), in)
	}
	d, ev, err := Choose("", 0)
	require.NoError(t, err)
	assert.Same(t, Unidentified, d)
	assert.Same(t, LLVM23, d, "a controller not identified gets the dialect 22 and 23 both read")
	assert.Contains(t, ev.How, "default")
	assert.False(t, ev.Unspoken())
	d, ev, err = Choose("19", 0)
	require.NoError(t, err)
	assert.Same(t, LLVM19, d)
	assert.Equal(t, 19, ev.Release)
}

// TestForIdentified: a release orcrt knows gets its own dialect; one newer
// than any it knows gets the newest, with evidence naming the release and
// saying orcrt does not speak it yet; an unpackaged older one (17) gets
// the dialect for controllers not identified.
func TestForIdentified(t *testing.T) {
	d, ev := ForIdentified(23, "path of pid 7 (/usr/lib/llvm-23/bin/llvm-jitlink)")
	assert.Same(t, LLVM23, d)
	assert.False(t, ev.Unspoken())
	assert.Equal(t, "path of pid 7 (/usr/lib/llvm-23/bin/llvm-jitlink)", ev.How)

	d, ev = ForIdentified(99, "version text in pid 7's executable")
	assert.Same(t, Newest, d)
	assert.True(t, ev.Unspoken())
	assert.Equal(t, 99, ev.Release)
	assert.Contains(t, ev.How, "version text in pid 7's executable; LLVM 99 is newer than any release orcrt knows and orcrt does not speak it yet, so it speaks "+Newest.Name)

	// Main's dialect is a reading of main's sources at one time: the
	// evidence of a controller given it says which (logged with -v).
	d, ev = ForIdentified(24, "path")
	assert.Same(t, LLVMMain, d)
	assert.False(t, ev.Unspoken())
	assert.Equal(t, "path; orcrt speaks LLVM main (24) as main's sources stood in September 2026", ev.How)
	d, ev = ForIdentified(25, "path")
	assert.Same(t, LLVMMain, d)
	assert.True(t, ev.Unspoken())
	assert.Contains(t, ev.How, "LLVM 25 is newer than any release orcrt knows and orcrt does not speak it yet, so it speaks LLVM main (24), its newest dialect, as main's sources stood in September 2026")

	d, ev = ForIdentified(17, "path")
	assert.Same(t, Unidentified, d)
	assert.True(t, ev.Unspoken())
	assert.Contains(t, ev.How, "orcrt does not speak LLVM 17")
}

// TestReleaseOfRealControllers identifies each installed LLVM's lli (a
// controller that waits on its standard input) from /proc: by its install
// directory, and by the libLLVM it maps when run from a copy outside it.
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
		r, how := releaseOfRunning(t, exec.Command(lli), "path")
		assert.Equal(t, n, r, "%s: %s", lli, how)
		t.Logf("lli %d: %s", n, how)

		img, err := os.ReadFile(lli)
		require.NoError(t, err)
		cp := filepath.Join(t.TempDir(), "lli")
		require.NoError(t, os.WriteFile(cp, img, 0o755))
		cmd := exec.Command(cp)
		cmd.Env = append(os.Environ(), fmt.Sprintf("LD_LIBRARY_PATH=/usr/lib/llvm-%d/lib", n))
		r, how = releaseOfRunning(t, cmd, "mapped")
		assert.Equal(t, n, r, "copy of %s: %s", lli, how)
		t.Logf("copy of lli %d: %s", n, how)
	}
	if found == 0 {
		t.Skip("dialect: no LLVM installed")
	}
}

// releaseOfRunning starts cmd and identifies it once the evidence names
// want (the loader maps libLLVM some time after exec), then kills it.
func releaseOfRunning(t *testing.T, cmd *exec.Cmd, want string) (int, string) {
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	var r int
	var how string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if r, how = ReleaseOfProcess(cmd.Process.Pid); r > 0 && strings.Contains(how, want) {
			break
		}
	}
	return r, how
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
		r, linksCL := scanExecutable(lib)
		assert.Equal(t, n, r, lib)
		assert.True(t, linksCL, lib)
		t.Logf("%s: %v", lib, time.Since(start))
	}
}
