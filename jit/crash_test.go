//go:build linux && cgo

package jit_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/internal/crossexec"
	"github.com/orcgo/orcrt/internal/jittest"
	"github.com/orcgo/orcrt/jit"
	"github.com/orcgo/orcrt/native/jitsyms"
)

// crashEnv makes the test binary a host that crashes in JIT'd code
// (crashHost), as the value says.
const crashEnv = "ORCRT_JIT_CRASH_CASE"

const crashySrc = `
#include <stdlib.h>
long crashy_segv(long *p) { return p[2] + 1; }
long crashy_abort(long x) { if (x > 0) abort(); return x; }
`

// crashHost adds crashy.c and calls into it with a NULL pointer
// ("segv", "segv-no-report": with Options.NoCrashReport) or so that it
// calls abort() ("abort"). "segv" first checks that faults in Go code
// are still recoverable panics.
func crashHost(c string) {
	fail := func(err error) {
		if err != nil {
			fmt.Fprintln(os.Stderr, "crash host:", err)
			os.Exit(3)
		}
	}
	ctx := context.Background()
	j, err := jit.Start(ctx, jit.Options{NoCrashReport: c == "segv-no-report"})
	fail(err)
	m, err := j.AddC(ctx, "crashy.c", crashySrc)
	fail(err)
	fs, err := m.Lookup(ctx, "crashy_segv", "crashy_abort")
	fail(err)
	// crashy_segv is a leaf: its Func runs on the goroutine stack unless
	// the case names a lower tier.
	f, arg := fs[0], int64(0)
	if f.Tier() != call.TierGoStack {
		fail(fmt.Errorf("crashy_segv at %s", f.Tier()))
	}
	switch c {
	case "segv-system-stack":
		f, err = f.AtTier(call.TierSystemStack)
		fail(err)
	case "segv-cgo":
		f, err = f.AtTier(call.TierCgo)
		fail(err)
	case "segv":
		fail(goFaultsRecover())
		os.Stderr.WriteString("go faults recovered\n")
	case "abort":
		f, arg = fs[1], 1
	}
	_, err = call.Typed1[int64, int64](f).Call(arg)
	fmt.Fprintln(os.Stderr, "survived:", err)
	os.Exit(4)
}

// goFaultsRecover checks that a nil dereference in Go code and a fault
// under debug.SetPanicOnFault are still recovered.
func goFaultsRecover() error {
	var re runtime.Error
	var p *int
	r := func() (r any) {
		defer func() { r = recover() }()
		*p = 1
		return nil
	}()
	if err, ok := r.(error); !ok || !errors.As(err, &re) {
		return fmt.Errorf("nil dereference: recovered %v", r)
	}
	page, err := syscall.Mmap(-1, 0, os.Getpagesize(), syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return err
	}
	defer syscall.Munmap(page)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	r = func() (r any) {
		defer func() { r = recover() }()
		return page[8]
	}()
	var addr interface{ Addr() uintptr }
	if err, ok := r.(error); !ok || !errors.As(err, &addr) || addr.Addr() != uintptr(unsafe.Pointer(&page[0]))+8 {
		return fmt.Errorf("fault under SetPanicOnFault: recovered %v", r)
	}
	return nil
}

// TestCrashReport: a NULL dereference or abort() in JIT'd code prints a
// line naming the function and its module, then the Go runtime's crash
// as before (goroutine stacks, exit status 2), at every call tier (the
// segv cases; a leaf runs on the goroutine stack unless lowered);
// NoCrashReport, no line.
func TestCrashReport(t *testing.T) {
	jittest.Controller(t)
	for _, tc := range []struct {
		name string
		line string // "": none
	}{
		{"segv", `(?m)^orcrt jit: SIGSEGV \(segmentation fault\) in native code, address 0x10, pc 0x[0-9a-f]+ in crashy_segv\+0x[0-9a-f]+ \(module crashy\.c\)$`},
		{"segv-system-stack", `(?m)^orcrt jit: SIGSEGV \(segmentation fault\) in native code, address 0x10, pc 0x[0-9a-f]+ in crashy_segv\+0x[0-9a-f]+ \(module crashy\.c\)$`},
		{"segv-cgo", `(?m)^orcrt jit: SIGSEGV \(segmentation fault\) in native code, address 0x10, pc 0x[0-9a-f]+ in crashy_segv\+0x[0-9a-f]+ \(module crashy\.c\)$`},
		{"abort", `(?m)^orcrt jit: SIGABRT \(abort\) in native code, pc 0x[0-9a-f]+, called from crashy_abort\+0x[0-9a-f]+ \(module crashy\.c\)$`},
		{"segv-no-report", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd := crossexec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), crashEnv+"="+tc.name)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, stderr.String())
			out := stderr.String()
			assert.Equal(t, 2, ee.ExitCode(), out)
			dump := strings.Index(out, "goroutine ")
			require.Positive(t, dump, "the Go runtime's crash output:\n%s", out)
			if tc.line == "" {
				assert.NotContains(t, out, "orcrt jit:")
				return
			}
			loc := regexp.MustCompile(tc.line).FindStringIndex(out)
			require.NotNil(t, loc, "no report line matching %s in\n%s", tc.line, out)
			assert.Less(t, loc[0], dump, "the line comes first")
			if tc.name == "segv" {
				assert.True(t, strings.HasPrefix(out, "go faults recovered\n"), out)
			}
		})
	}
}

// TestModuleCodeNamed: an add names its functions, with the module's
// name, for the crash report; Remove drops them with the code.
func TestModuleCodeNamed(t *testing.T) {
	j := start(t, jit.Options{})
	ctx := context.Background()
	m, err := j.AddC(ctx, "named.c", "long named_f(long x) { return x + 1; }")
	require.NoError(t, err)
	a, err := m.Addrs(ctx, "named_f")
	require.NoError(t, err)
	s, ok := jitsyms.Lookup(uint64(a[0]))
	require.True(t, ok, "named after the add")
	assert.Equal(t, "named_f", s.Name)
	assert.Equal(t, "named.c", s.Module)
	assert.Equal(t, uint64(a[0]), s.Start)
	assert.Greater(t, s.End, s.Start)
	require.NoError(t, m.Remove(ctx))
	_, ok = jitsyms.Lookup(uint64(a[0]))
	assert.False(t, ok, "the name goes with the code")
}
