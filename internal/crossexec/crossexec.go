package crossexec

import (
	"context"
	"encoding/binary"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// WrapperEnv names the environment variable holding the emulation
// wrapper (set by .ci/qemu-arm64-exec.sh to its own path). The wrapper
// takes QEMU user mode's command line: [options] program [args...].
const WrapperEnv = "ORCRT_EXEC_WRAPPER"

// ELF e_machine values of the GOARCHes orcrt supports.
var elfMachine = map[string]uint16{
	"amd64": 62,  // EM_X86_64
	"arm64": 183, // EM_AARCH64
}

// Emulated reports whether this process runs under the emulation wrapper.
func Emulated() bool { return os.Getenv(WrapperEnv) != "" }

// Wrap returns the program and arguments that start path with args: path
// itself when no rewriting is needed, or the wrapper with QEMU's "-0 path"
// (so the program sees argv[0] = path, as when run natively) followed by
// the binary's real path (see the package documentation).
func Wrap(path string, args []string) (string, []string) {
	wrapper := os.Getenv(WrapperEnv)
	if wrapper == "" {
		return path, args
	}
	real := path
	if prefix := os.Getenv("QEMU_LD_PREFIX"); prefix != "" && filepath.IsAbs(path) {
		// QEMU resolves an absolute path opened by the guest in its
		// sysroot first; a child QEMU would not, so resolve it here.
		if _, err := os.Stat(filepath.Join(prefix, path)); err == nil {
			real = filepath.Join(prefix, path)
		}
	}
	if !forThisArch(real) {
		return path, args
	}
	return wrapper, append([]string{"-0", path, real}, args...)
}

// Command is exec.Command with the program rewritten by [Wrap].
func Command(name string, arg ...string) *exec.Cmd {
	p, a := Wrap(lookPath(name), arg)
	return exec.Command(p, a...)
}

// CommandContext is exec.CommandContext with the program rewritten by
// [Wrap].
func CommandContext(ctx context.Context, name string, arg ...string) *exec.Cmd {
	p, a := Wrap(lookPath(name), arg)
	return exec.CommandContext(ctx, p, a...)
}

// lookPath resolves a bare command name as exec.Command would; on failure
// the name is kept so exec.Command reports the error itself.
func lookPath(name string) string {
	if filepath.Base(name) != name || !Emulated() {
		return name
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return name
}

// forThisArch reports whether path is an ELF file for runtime.GOARCH.
func forThisArch(path string) bool {
	want, ok := elfMachine[runtime.GOARCH]
	if !ok {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var hdr [20]byte // e_ident[16], e_type, e_machine
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		return false
	}
	if string(hdr[:4]) != "\x7fELF" || hdr[5] != 1 { // little-endian only
		return false
	}
	return binary.LittleEndian.Uint16(hdr[18:]) == want
}

// qemuSignalNote starts the line QEMU user mode prints on the guest's
// stderr when the guest dies by a core-dumping signal (even without a
// core).
const qemuSignalNote = "qemu: uncaught target signal "

// StripEmulatorNotes removes from a child's stderr the lines the emulator
// itself wrote (see qemuSignalNote), so tests compare what the program
// wrote. Natively (not Emulated) it returns stderr unchanged.
func StripEmulatorNotes(stderr string) string {
	if !Emulated() || !strings.Contains(stderr, qemuSignalNote) {
		return stderr
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(stderr, "\n") {
		if !strings.HasPrefix(line, qemuSignalNote) {
			b.WriteString(line)
		}
	}
	return b.String()
}
