//go:build cgo

package fatalsig_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/crossexec"
	"github.com/orcgo/orcrt/native/fatalsig"
	"github.com/orcgo/orcrt/native/internal/crashers"
)

const envCase = "ORCRT_FATALSIG_CASE"

func TestMain(m *testing.M) {
	if c := os.Getenv(envCase); c != "" {
		if err := fatalsig.Install(); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(3)
		}
		if c == "abort-sent" {
			// SIGABRT from another process, as kill -ABRT sends it (the
			// shell's builtin: no procps needed).
			if err := exec.Command("sh", "-c", "kill -ABRT "+strconv.Itoa(os.Getpid())).Run(); err != nil {
				os.Stderr.WriteString(err.Error() + "\n")
				os.Exit(5)
			}
			time.Sleep(5 * time.Second)
			os.Exit(4)
		}
		if c == "go-nil" {
			// Go code keeps Go's fault handling: a recoverable panic.
			func() {
				defer func() { _ = recover() }()
				var p *int
				*p = 1
			}()
			os.Exit(0)
		}
		crashers.Run(c)
		if strings.HasPrefix(c, "atexit-") || c == "buffered-print" {
			fatalsig.Exit(3) // as the executor ends
		}
		os.Stderr.WriteString("survived\n")
		os.Exit(4)
	}
	os.Exit(m.Run())
}

func runCase(t *testing.T, name string) (syscall.WaitStatus, string) {
	ws, _, stderr := runCaseOut(t, name)
	return ws, stderr
}

func runCaseOut(t *testing.T, name string) (syscall.WaitStatus, string, string) {
	t.Helper()
	cmd := crossexec.Command(os.Args[0], "-test.run=^$") // via QEMU under the arm64 job
	cmd.Env = append(os.Environ(), envCase+"="+name)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	// Under QEMU (the arm64 job) the emulator adds its own line when the
	// child dies by a signal; only the child's own output is checked.
	return cmd.ProcessState.Sys().(syscall.WaitStatus), stdout.String(), crossexec.StripEmulatorNotes(stderr.String())
}

func TestDiesBySignal(t *testing.T) {
	tests := []struct {
		name string
		sig  syscall.Signal
		note bool // our one-line diagnostic is printed
	}{
		{"segv", syscall.SIGSEGV, true},
		{"segv-thread", syscall.SIGSEGV, true},
		{"bus", syscall.SIGBUS, true},
		{"ill", syscall.SIGILL, true},
		{"trap", syscall.SIGTRAP, true},
		{"abort", syscall.SIGABRT, false},
		{"abort-sent", syscall.SIGABRT, false},
		{"sigpipe", syscall.SIGPIPE, false},
	}
	if runtime.GOARCH == "amd64" {
		tests = append(tests, struct {
			name string
			sig  syscall.Signal
			note bool
		}{"fpe", syscall.SIGFPE, true})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws, stderr := runCase(t, tc.name)
			require.True(t, ws.Signaled(), "exit status %v, stderr:\n%s", ws, stderr)
			assert.Equal(t, tc.sig, ws.Signal(), stderr)
			assert.NotContains(t, stderr, "goroutine ", "no Go crash dump")
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			switch {
			case tc.note:
				require.Len(t, lines, 1, stderr)
				assert.True(t, strings.HasPrefix(lines[0], "orcrt-executor: "), stderr)
				if runtime.GOOS == "linux" && tc.sig != syscall.SIGTRAP {
					// Where the fault happened, for a crash in JIT'd code
					// (SIGTRAP is raised, not taken at an instruction).
					assert.Regexp(t, `, pc 0x[0-9a-f]{4,}$`, lines[0])
				}
			case tc.name == "abort":
				assert.Equal(t, "about to abort\n", stderr)
			default:
				assert.Empty(t, stderr)
			}
		})
	}
}

func TestGoFaultsStayGo(t *testing.T) {
	ws, stderr := runCase(t, "go-nil")
	assert.True(t, ws.Exited(), stderr)
	assert.Equal(t, 0, ws.ExitStatus(), stderr)
}

// TestExit: Exit runs libc's exit: stdio is flushed and atexit handlers
// run; one that crashes kills the process by its signal, silently.
func TestExit(t *testing.T) {
	ws, stdout, stderr := runCaseOut(t, "buffered-print")
	assert.True(t, ws.Exited())
	assert.Equal(t, 3, ws.ExitStatus())
	assert.Equal(t, "buffered", stdout)
	assert.Empty(t, stderr)

	ws, _, stderr = runCaseOut(t, "atexit-segv")
	require.True(t, ws.Signaled(), "%v %s", ws, stderr)
	assert.Equal(t, syscall.SIGSEGV, ws.Signal())
	assert.Empty(t, stderr, "no diagnostic for a crash during exit")
}
