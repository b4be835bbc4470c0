// Package jittest builds the C++ programs of package jit's tests and
// benchmarks against LLVM 22: orcrt-jit-controller (unless
// ORCRT_JIT_CONTROLLER names one) and the benchmarks' references. Each is
// built once per source version into the user's cache directory.
package jittest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/orcgo/orcrt/internal/llvmtools"
)

type built struct {
	once sync.Once
	path string
	err  error
}

var (
	mu     sync.Mutex
	builds = map[string]*built{}
)

// Controller returns orcrt-jit-controller. It skips t (fails under
// ORCRT_REQUIRE_LLVM) when LLVM 22's headers are not installed.
func Controller(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("ORCRT_JIT_CONTROLLER"); p != "" {
		return p
	}
	return Program(t, filepath.Join(controllerDir(), "controller.cpp"))
}

// Program returns the C++ program of src built against LLVM 22 with
// jit/controller/build.sh.
func Program(t testing.TB, src string) string {
	t.Helper()
	mu.Lock()
	b := builds[src]
	if b == nil {
		b = &built{}
		builds[src] = b
	}
	mu.Unlock()
	b.once.Do(func() { b.path, b.err = build(src) })
	if b.err != nil {
		llvmtools.Missing(t, "%s: %v", filepath.Base(src), b.err)
	}
	return b.path
}

func controllerDir() string {
	_, self, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(self), "..", "..", "jit", "controller")
}

func build(src string) (string, error) {
	script := filepath.Join(controllerDir(), "build.sh")
	h := sha256.New()
	for _, f := range []string{src, script} {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	name := filepath.Base(src)
	path := filepath.Join(cache, "orcrt", name[:len(name)-len(filepath.Ext(name))]+"-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if out, err := exec.Command(script, path, src).CombinedOutput(); err != nil {
		return "", &buildError{out: string(out), err: err}
	}
	return path, nil
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }
