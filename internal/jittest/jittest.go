// Package jittest finds orcrt-jit-controller for tests, building it from
// jit/controller when ORCRT_JIT_CONTROLLER does not name one.
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

var (
	once sync.Once
	path string
	err  error
)

// Controller returns the controller program, built once per source
// version into the user's cache directory. It skips t (fails under
// ORCRT_REQUIRE_LLVM) when LLVM 22's headers are not installed.
func Controller(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("ORCRT_JIT_CONTROLLER"); p != "" {
		return p
	}
	once.Do(build)
	if err != nil {
		llvmtools.Missing(t, "orcrt-jit-controller: %v", err)
	}
	return path
}

func build() {
	_, self, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(self), "..", "..", "jit", "controller")
	h := sha256.New()
	for _, f := range []string{"controller.cpp", "build.sh"} {
		b, rerr := os.ReadFile(filepath.Join(dir, f))
		if rerr != nil {
			err = rerr
			return
		}
		h.Write(b)
	}
	cache, cerr := os.UserCacheDir()
	if cerr != nil {
		cache = os.TempDir()
	}
	path = filepath.Join(cache, "orcrt", "orcrt-jit-controller-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, serr := os.Stat(path); serr == nil {
		return
	}
	out, berr := exec.Command(filepath.Join(dir, "build.sh"), path).CombinedOutput()
	if berr != nil {
		err = &buildError{out: string(out), err: berr}
	}
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }
