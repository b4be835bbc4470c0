//go:build linux

package staticctl

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/internal/crossexec"
	"github.com/orcgo/orcrt/internal/llvmtools"
)

// Placement is where a test puts a static controller of Release, below
// a temporary directory, and how orcrt-executor's log says it identified
// it there.
type Placement struct {
	Release int
	Dir     string
	How     string
}

// Placements are LLVM's release-tarball directories, identified by
// their name, and build directories that say nothing, identified by
// running the controller with --version.
var Placements = []Placement{
	{22, "LLVM-22.1.8-Linux-X64/bin", "path of pid"},
	{22, "llvm-project/build/bin", "--version of pid"},
	{19, "LLVM-19.1.7-Linux-X64/bin", "path of pid"},
	{19, "clang+llvm-19.1.7-x86_64-linux-gnu-ubuntu-18.04/bin", "path of pid"},
	{19, "build/bin", "--version of pid"},
}

type built struct {
	once sync.Once
	path string
	err  error
}

var (
	mu     sync.Mutex
	builds = map[int]*built{}
)

// Controller returns orcrt-static-controller linked against LLVM release
// n. It skips t (fails under ORCRT_REQUIRE_LLVM=1) without llvm-n-dev,
// and under emulation, where the controller would be the host's.
func Controller(t testing.TB, n int) string {
	t.Helper()
	if crossexec.Emulated() {
		t.Skip("staticctl: the controller is built for the host, not for the emulated GOARCH")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("staticctl: built against Debian's x86-64 LLVM packages")
	}
	mu.Lock()
	b := builds[n]
	if b == nil {
		b = &built{}
		builds[n] = b
	}
	mu.Unlock()
	b.once.Do(func() { b.path, b.err = build(n) })
	if b.err != nil {
		llvmtools.Missing(t, "%v", b.err)
	}
	return b.path
}

// Place puts the controller at dir/name, as a hard link where it can
// (the running process's /proc/PID/exe names the link, as it would a
// copy), else as a copy.
func Place(t testing.TB, ctl, dir, name string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if os.Link(ctl, p) == nil {
		return p
	}
	img, err := os.ReadFile(ctl)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, img, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func sourceDir() string {
	_, self, _, _ := runtime.Caller(0)
	return filepath.Dir(self)
}

// build links the controller into the cache, keyed by a hash of the
// release, its point release, build.sh and the source; a lock file makes
// concurrent test processes (go test ./... runs packages at once) link it
// once.
func build(n int) (string, error) {
	dir := sourceDir()
	h := sha256.New()
	// The installed point release too: an upgrade relinks.
	version, _ := exec.Command(fmt.Sprintf("/usr/lib/llvm-%d/bin/llvm-config", n), "--version").Output()
	fmt.Fprintf(h, "llvm-%d %s\x00", n, version)
	for _, f := range []string{"build.sh", "csrc/controller.cpp"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return "", fmt.Errorf("staticctl: %w", err)
		}
		h.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	cache = filepath.Join(cache, "orcrt")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", fmt.Errorf("staticctl: %w", err)
	}
	path := filepath.Join(cache, "orcrt-static-controller-"+strconv.Itoa(n)+"-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", fmt.Errorf("staticctl: %w", err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return "", fmt.Errorf("staticctl: lock: %w", err)
	}
	defer unix.Flock(int(lock.Fd()), unix.LOCK_UN)
	if _, err := os.Stat(path); err == nil {
		return path, nil // another process linked it meanwhile
	}
	out, err := exec.Command(filepath.Join(dir, "build.sh"), path, strconv.Itoa(n)).CombinedOutput()
	if err != nil {
		return "", &buildError{release: n, out: string(out), err: err}
	}
	return path, nil
}

type buildError struct {
	release int
	out     string
	err     error
}

func (e *buildError) Error() string {
	return fmt.Sprintf("staticctl: linking orcrt-static-controller against LLVM %d: %v: %s", e.release, e.err, e.out)
}

func (e *buildError) Unwrap() error { return e.err }
