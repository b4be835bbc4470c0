//go:build cgo && linux

package executor_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/internal/llvmtools"
)

const llvmJITLink22 = "/usr/lib/llvm-22/bin/llvm-jitlink"

// TestOpenOnListen: Open with listen=127.0.0.1:0 reports the port it got
// through Options.OnListen before it accepts; a real llvm-jitlink 22
// connects to it (-oop-executor-connect) and runs a program in this
// process, which writes a file the test reads. llvm-jitlink 22 closes
// its socket at exit without shutting it down (with the stock executor
// it never exits); Serve notices and ends the session, llvm-jitlink exits
// with the program's status and Serve returns nil.
func TestOpenOnListen(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("clang-22 and llvm-jitlink here build and link x86-64 code") // under QEMU (make arm64-unit)
	}
	for _, tool := range []string{llvmJITLink22, "/usr/bin/clang-22"} {
		if _, err := os.Stat(tool); err != nil {
			llvmtools.Missing(t, "%v", err)
		}
	}
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	src, obj := filepath.Join(dir, "prog.c"), filepath.Join(dir, "prog.o")
	require.NoError(t, os.WriteFile(src, []byte(`#include <stdio.h>
int main(void) {
  FILE *f = fopen(RAN, "w");
  if (!f) return 1;
  fputs("main ran\n", f);
  return fclose(f) == 0 ? 7 : 1;
}
`), 0o644))
	out, err := exec.Command("clang-22", "-c", "-O1", "-fPIC", `-DRAN="`+ran+`"`, src, "-o", obj).CombinedOutput()
	require.NoError(t, err, "%s", out)

	addrs := make(chan net.Addr, 1)
	c, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	served := make(chan error, 1)
	openErr := make(chan error, 1)
	go func() {
		ex, conn, err := executor.Open(c, []string{"listen=127.0.0.1:0"}, executor.Options{
			OnListen: func(a net.Addr) { addrs <- a },
		})
		openErr <- err
		if err != nil {
			return
		}
		served <- ex.Serve(context.Background(), conn)
		ex.Close()
	}()
	var addr net.Addr
	select {
	case addr = <-addrs:
	case err := <-openErr:
		t.Fatalf("Open returned before OnListen: %v", err)
	case <-c.Done():
		t.Fatal("OnListen was not called")
	}
	tcp, ok := addr.(*net.TCPAddr)
	require.True(t, ok, "%T", addr)
	assert.Equal(t, "127.0.0.1", tcp.IP.String())
	require.NotZero(t, tcp.Port, "the port the kernel picked")

	jitlink := exec.Command(llvmJITLink22, "-oop-executor-connect="+addr.String(), obj)
	var jlOut strings.Builder
	jitlink.Stdout, jitlink.Stderr = &jlOut, &jlOut
	require.NoError(t, jitlink.Start())
	jlDone := make(chan struct{})
	go func() { _ = jitlink.Wait(); close(jlDone) }()
	t.Cleanup(func() { _ = jitlink.Process.Kill(); <-jlDone })
	require.NoError(t, <-openErr, "Open after the controller connected")

	deadline := time.Now().Add(callTimeout)
	for {
		b, _ := os.ReadFile(ran)
		if string(b) == "main ran\n" {
			break
		}
		select {
		case <-jlDone:
			t.Fatalf("llvm-jitlink ended before the program ran: %s", jlOut.String())
		default:
		}
		require.True(t, time.Now().Before(deadline), "the program did not run in this process")
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case <-jlDone:
	case <-time.After(callTimeout):
		t.Fatalf("llvm-jitlink did not exit after the program ran: %s", jlOut.String())
	}
	assert.Equal(t, 7, jitlink.ProcessState.ExitCode(), "llvm-jitlink's status is main's: %s", jlOut.String())
	select {
	case err := <-served:
		assert.NoError(t, err, "Serve after llvm-jitlink let go of its socket")
	case <-time.After(callTimeout):
		t.Fatal("Serve did not return after llvm-jitlink exited")
	}
}

// TestOpenUsage: Open without arguments names the accepted forms
// (orcrt-executor prints the stock's error line and its usage instead).
func TestOpenUsage(t *testing.T) {
	_, _, err := executor.Open(context.Background(), nil, executor.Options{})
	require.EqualError(t, err, "executor: insufficient arguments (want filedescs=IN,OUT, listen=HOST:PORT, unix=PATH or lli's IN OUT)")
}
