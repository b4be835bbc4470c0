// Package cbuild builds C source for tests: the shared objects that stand
// in for JIT'd code. Only tests import it.
package cbuild

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// SharedObject compiles C source into a shared object in a temporary
// directory of t and returns its path. It uses $CC, the compiler cgo
// builds with (aarch64-linux-gnu-gcc when the tests are cross-built for
// arm64 and run under QEMU), or cc. It skips t if no C compiler is
// installed.
func SharedObject(t testing.TB, name, src string) string {
	t.Helper()
	ccArgs := strings.Fields(os.Getenv("CC"))
	if len(ccArgs) == 0 {
		ccArgs = []string{"cc"}
	}
	cc, err := exec.LookPath(ccArgs[0])
	if err != nil {
		t.Skip("no C compiler:", err)
	}
	dir := t.TempDir()
	cfile := filepath.Join(dir, name+".c")
	if err := os.WriteFile(cfile, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	so := filepath.Join(dir, "lib"+name+".so")
	if out, err := exec.Command(cc, append(ccArgs[1:], "-shared", "-fPIC", "-O1", "-pthread", "-o", so, cfile)...).CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", so, err, out)
	}
	return so
}
