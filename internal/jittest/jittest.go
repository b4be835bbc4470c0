// Package jittest builds the C++ programs of package jit's tests and
// benchmarks against LLVM 22: orcrt-jit-controller (unless
// ORCRT_JIT_CONTROLLER names one) and the benchmarks' references. Each is
// built once per source version into the user's cache directory.
package jittest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/orcgo/orcrt/internal/crossexec"
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
	p, err := ControllerPath()
	switch {
	case errors.Is(err, ErrEmulated):
		t.Skip(err) // no arm64 LLVM to build it against; not a missing install
	case err != nil:
		llvmtools.Missing(t, "orcrt-jit-controller: %v", err)
	}
	return p
}

// ControllerPath is Controller for a TestMain: the error says why the
// controller cannot be had.
func ControllerPath() (string, error) {
	if crossexec.Emulated() {
		return "", ErrEmulated
	}
	if p := os.Getenv("ORCRT_JIT_CONTROLLER"); p != "" {
		return p, nil
	}
	return program("")
}

// ErrEmulated is why the controller cannot be had under user-mode
// emulation: the test binary is arm64 and the controller this host's.
var ErrEmulated = errors.New("the controller is built for the host, not for the emulated GOARCH")

// Program returns the C++ program of src built against LLVM 22 with
// jit/controller/build.sh ("": the controller).
func Program(t testing.TB, src string) string {
	t.Helper()
	if crossexec.Emulated() {
		t.Skip(ErrEmulated)
	}
	p, err := program(src)
	if err != nil {
		llvmtools.Missing(t, "%s: %v", filepath.Base(src), err)
	}
	return p
}

func program(src string) (string, error) {
	mu.Lock()
	b := builds[src]
	if b == nil {
		b = &built{}
		builds[src] = b
	}
	mu.Unlock()
	b.once.Do(func() { b.path, b.err = build(src) })
	return b.path, b.err
}

func controllerDir() string {
	_, self, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(self), "..", "..", "jit", "controller")
}

func build(src string) (string, error) {
	script := filepath.Join(controllerDir(), "build.sh")
	// The controller's sources and the script, besides src.
	files, err := filepath.Glob(filepath.Join(controllerDir(), "*"))
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if src != "" {
		files = append(files, src)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	cache, cerr := os.UserCacheDir()
	if cerr != nil {
		cache = os.TempDir()
	}
	name, args := "orcrt-jit-controller", []string{}
	if src != "" {
		name, args = strings.TrimSuffix(filepath.Base(src), filepath.Ext(src)), []string{src}
	}
	path := filepath.Join(cache, "orcrt", name+"-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if out, err := exec.Command(script, append([]string{path}, args...)...).CombinedOutput(); err != nil {
		return "", &buildError{out: string(out), err: err}
	}
	return path, nil
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }
