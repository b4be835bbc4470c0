package crossexec

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// elfFile writes a minimal little-endian ELF header for machine.
func elfFile(t *testing.T, dir, name string, machine uint16) string {
	t.Helper()
	hdr := make([]byte, 64)
	copy(hdr, "\x7fELF")
	hdr[4], hdr[5] = 2, 1 // ELFCLASS64, ELFDATA2LSB
	hdr[18], hdr[19] = byte(machine), byte(machine>>8)
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, hdr, 0o755))
	return p
}

func otherMachine() uint16 {
	if runtime.GOARCH == "arm64" {
		return elfMachine["amd64"]
	}
	return elfMachine["arm64"]
}

func TestWrap(t *testing.T) {
	if _, ok := elfMachine[runtime.GOARCH]; !ok {
		t.Skip("no ELF machine known for", runtime.GOARCH)
	}
	dir := t.TempDir()
	same := elfFile(t, dir, "same", elfMachine[runtime.GOARCH])
	other := elfFile(t, dir, "other", otherMachine())
	script := filepath.Join(dir, "script")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755))

	t.Run("no wrapper: unchanged", func(t *testing.T) {
		t.Setenv(WrapperEnv, "")
		p, a := Wrap(same, []string{"x"})
		assert.Equal(t, same, p)
		assert.Equal(t, []string{"x"}, a)
		assert.False(t, Emulated())
	})

	t.Setenv(WrapperEnv, "/wrapper")
	t.Setenv("QEMU_LD_PREFIX", "")
	tests := []struct {
		name     string
		path     string
		wantPath string
		wantArgs []string
	}{
		{"this GOARCH: wrapped", same, "/wrapper", []string{"-0", same, same, "a", "b"}},
		{"other machine: unchanged", other, other, []string{"a", "b"}},
		{"script: unchanged", script, script, []string{"a", "b"}},
		{"missing: unchanged", filepath.Join(dir, "nope"), filepath.Join(dir, "nope"), []string{"a", "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, a := Wrap(tc.path, []string{"a", "b"})
			assert.Equal(t, tc.wantPath, p)
			assert.Equal(t, tc.wantArgs, a)
		})
	}

	t.Run("sysroot first", func(t *testing.T) {
		root := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(root, dir), 0o755))
		inRoot := elfFile(t, filepath.Join(root, dir), "other", elfMachine[runtime.GOARCH])
		t.Setenv("QEMU_LD_PREFIX", root)
		// The host file is for the other machine, the sysroot's for ours:
		// the sysroot's runs, as QEMU would open it.
		p, a := Wrap(other, nil)
		assert.Equal(t, "/wrapper", p)
		assert.Equal(t, []string{"-0", other, inRoot}, a)
	})
}

// TestCommandRunsChild starts this test binary again through Command: it
// runs natively, and under the emulation wrapper (the arm64 CI job) it is
// the re-exec that would fail with ENOEXEC without the wrapper.
func TestCommandRunsChild(t *testing.T) {
	if os.Getenv("CROSSEXEC_CHILD") == "1" {
		fmt.Println("argv0=" + os.Args[0])
		return
	}
	self, err := os.Executable()
	require.NoError(t, err)
	cmd := Command(self, "-test.run=^TestCommandRunsChild$", "-test.v")
	cmd.Env = append(os.Environ(), "CROSSEXEC_CHILD=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "--- PASS: TestCommandRunsChild")
	assert.Contains(t, string(out), "argv0="+self+"\n", "the child sees argv[0] as given")
	if Emulated() {
		assert.NotEqual(t, self, cmd.Path, "re-exec under emulation goes through the wrapper")
	} else {
		assert.Equal(t, self, cmd.Path)
	}
}

func TestCommandHostToolUnchanged(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	cmd := Command("sh", "-c", "echo ok")
	out, err := cmd.Output()
	require.NoError(t, err)
	assert.Equal(t, "ok", strings.TrimSpace(string(out)))
	if Emulated() {
		assert.Equal(t, sh, cmd.Path, "host tools run natively")
	}
}

func TestStripEmulatorNotes(t *testing.T) {
	in := "orcrt-executor: SIGSEGV (segmentation fault) in native code, address 0x10\n" +
		"qemu: uncaught target signal 11 (Segmentation fault) - core dumped\n"
	t.Setenv(WrapperEnv, "")
	assert.Equal(t, in, StripEmulatorNotes(in), "natively nothing is removed")
	t.Setenv(WrapperEnv, "/wrapper")
	assert.Equal(t, "orcrt-executor: SIGSEGV (segmentation fault) in native code, address 0x10\n", StripEmulatorNotes(in))
	assert.Equal(t, "", StripEmulatorNotes("qemu: uncaught target signal 5 (Trace/breakpoint trap) - core dumped\n"))
	assert.Equal(t, "x\n", StripEmulatorNotes("x\n"))
}
