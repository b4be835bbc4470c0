//go:build cgo

package faultreport_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/crossexec"
	"github.com/orcgo/orcrt/native/faultreport"
	"github.com/orcgo/orcrt/native/internal/crashers"
	"github.com/orcgo/orcrt/native/jitsyms"
)

const (
	envCase = "ORCRT_FAULTREPORT_CASE"
	prefix  = "faultreport test: "
)

// TestMain runs a case in a child: what a host set before (a disposition
// the handler chains to), Install, the crasher named as JIT'd code of
// module crashers.c (unless "unnamed"), then the crash.
func TestMain(m *testing.M) {
	c := os.Getenv(envCase)
	if c == "" {
		os.Exit(m.Run())
	}
	switch c {
	case "abort-ignored":
		signal.Ignore(syscall.SIGABRT)
	case "segv-default", "segv-plain":
		crashers.Run(c)
	}
	if err := faultreport.Install(prefix); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(3)
	}
	fn := "segv"
	if strings.HasPrefix(c, "abort") {
		fn = "abort"
	}
	if c != "segv-unnamed" {
		start, end := crashers.Func(fn)
		jitsyms.AddAll([]jitsyms.Sym{{Start: start, End: end, Name: "crash_" + fn, Module: "crashers.c"}})
	}
	if c == "segv-thread" {
		fn = c
	}
	crashers.Run(fn)
	os.Stderr.WriteString("survived\n")
	os.Exit(4)
}

func runCase(t *testing.T, name string) (syscall.WaitStatus, string) {
	t.Helper()
	cmd := crossexec.Command(os.Args[0], "-test.run=^$") // via QEMU under the arm64 job
	cmd.Env = append(os.Environ(), envCase+"="+name)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.Sys().(syscall.WaitStatus), crossexec.StripEmulatorNotes(stderr.String())
}

// TestReport: a crash in named code gets its line, then what the handler
// in place before would have done: Go's crash (goroutine stacks, exit
// status 2), the default action, or a plain handler.
func TestReport(t *testing.T) {
	const segvLine = prefix + `SIGSEGV \(segmentation fault\) in native code, address 0x10, pc 0x[0-9a-f]+ in crash_segv\+0x[0-9a-f]+ \(module crashers\.c\)\n`
	const abortLine = prefix + `SIGABRT \(abort\) in native code, pc 0x[0-9a-f]+, called from crash_abort\+0x[0-9a-f]+ \(module crashers\.c\)\n`
	for _, tc := range []struct {
		name   string
		line   string // "": none
		goDump bool   // Go's crash: goroutine stacks, exit status 2
		sig    syscall.Signal
		exit   int
	}{
		{name: "segv", line: segvLine, goDump: true},
		// On a thread of the native code's own, the Go runtime kills the
		// process by the signal.
		{name: "segv-thread", line: segvLine, sig: syscall.SIGSEGV},
		{name: "segv-unnamed", goDump: true},
		{name: "abort", line: "about to abort\n" + abortLine, goDump: true},
		{name: "abort-ignored", line: "about to abort\n" + abortLine, sig: syscall.SIGABRT},
		{name: "segv-default", line: segvLine, sig: syscall.SIGSEGV},
		{name: "segv-plain", line: segvLine + "plain handler\n$", exit: 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.HasPrefix(tc.name, "abort") && crossexec.Emulated() {
				// abort()'s caller is found by a stack scan, which reads
				// with process_vm_readv: ENOSYS under QEMU user mode.
				t.Skip("no stack scan under QEMU user mode")
			}
			t.Parallel()
			ws, stderr := runCase(t, tc.name)
			if tc.line != "" {
				assert.Regexp(t, "^"+tc.line, stderr)
			} else {
				assert.NotContains(t, stderr, prefix)
			}
			switch {
			case tc.goDump:
				assert.Contains(t, stderr, "goroutine ")
				require.True(t, ws.Exited(), "%v\n%s", ws, stderr)
				assert.Equal(t, 2, ws.ExitStatus(), stderr)
			case tc.sig != 0:
				assert.NotContains(t, stderr, "goroutine ")
				require.True(t, ws.Signaled(), "%v\n%s", ws, stderr)
				assert.Equal(t, tc.sig, ws.Signal(), stderr)
			default:
				require.True(t, ws.Exited(), "%v\n%s", ws, stderr)
				assert.Equal(t, tc.exit, ws.ExitStatus(), stderr)
			}
		})
	}
}

// TestGoFaultsStayGo: after Install, faults in Go code are still Go's
// recoverable panics.
func TestGoFaultsStayGo(t *testing.T) {
	require.NoError(t, faultreport.Install(prefix))
	require.NoError(t, faultreport.Install("other: "), "idempotent")

	var p *int
	r := func() (r any) {
		defer func() { r = recover() }()
		*p = 1
		return nil
	}()
	var re runtime.Error
	require.ErrorAs(t, r.(error), &re)
	assert.Contains(t, re.Error(), "nil pointer dereference")

	page, err := syscall.Mmap(-1, 0, os.Getpagesize(), syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	require.NoError(t, err)
	defer syscall.Munmap(page)
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	r = func() (r any) {
		defer func() { r = recover() }()
		return page[8]
	}()
	var addr interface{ Addr() uintptr }
	require.ErrorAs(t, r.(error), &addr)
	assert.Equal(t, uintptr(unsafe.Pointer(&page[0]))+8, addr.Addr())
}
