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
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/internal/llvmtools"
)

const orcRuntime22 = "/usr/lib/llvm-22/lib/clang/22/lib/linux/liborc_rt-x86_64.a"

// TestLookupLLVMJITLinkORCRuntime: llvm-jitlink 22 -orc-runtime runs a
// program in this process whose C code exports nothing; Lookup finds
// filter by asking the controller, from several goroutines at once, while
// main waits for the test; a name the controller does not know ends in
// its error. Then main returns and llvm-jitlink exits with its status.
func TestLookupLLVMJITLinkORCRuntime(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("clang-22 and llvm-jitlink here build and link x86-64 code") // under QEMU (make arm64-unit)
	}
	for _, tool := range []string{llvmJITLink22, "/usr/bin/clang-22", orcRuntime22} {
		if _, err := os.Stat(tool); err != nil {
			llvmtools.Missing(t, "%v", err)
		}
	}
	dir := t.TempDir()
	stop := filepath.Join(dir, "stop")
	src, obj := filepath.Join(dir, "prog.c"), filepath.Join(dir, "prog.o")
	require.NoError(t, os.WriteFile(src, []byte(`#include <stdint.h>
#include <unistd.h>
int64_t filter(int64_t x) { return 3 * x + 1; }
int main(void) {
  while (access(STOP, F_OK) != 0)
    usleep(1000);
  return 7;
}
`), 0o644))
	out, err := exec.Command("clang-22", "-c", "-O1", "-fPIC", `-DSTOP="`+stop+`"`, src, "-o", obj).CombinedOutput()
	require.NoError(t, err, "%s", out)

	c, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	addrs := make(chan net.Addr, 1)
	type opened struct {
		ex   *executor.Executor
		err  error
		done chan error
	}
	openc := make(chan opened, 1)
	go func() {
		ex, conn, err := executor.Open(c, []string{"listen=127.0.0.1:0"}, executor.Options{
			LearnLookupRoute: true,
			OnListen:         func(a net.Addr) { addrs <- a },
		})
		o := opened{ex: ex, err: err, done: make(chan error, 1)}
		openc <- o
		if err != nil {
			return
		}
		o.done <- ex.Serve(context.Background(), conn)
		ex.Close()
	}()
	var addr net.Addr
	select {
	case addr = <-addrs:
	case o := <-openc:
		t.Fatalf("Open returned before OnListen: %v", o.err)
	}
	jitlink := exec.Command(llvmJITLink22, "-oop-executor-connect="+addr.String(), "-orc-runtime="+orcRuntime22, obj)
	var jlOut strings.Builder
	jitlink.Stdout, jitlink.Stderr = &jlOut, &jlOut
	require.NoError(t, jitlink.Start())
	jlDone := make(chan struct{})
	go func() { _ = jitlink.Wait(); close(jlDone) }()
	t.Cleanup(func() { _ = jitlink.Process.Kill(); <-jlDone })
	o := <-openc
	require.NoError(t, o.err)
	ex := o.ex

	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			f, err := ex.Lookup(c, "filter")
			if !assert.NoError(t, err, "goroutine %d", i) {
				return
			}
			v, err := call.Typed1[int64, int64](f).Call(int64(i))
			assert.NoError(t, err)
			assert.Equal(t, int64(3*i+1), v)
		})
	}
	wg.Wait()
	fs, err := ex.LookupAll(c, "filter", "main")
	require.NoError(t, err)
	assert.NotEqual(t, fs[0].Addr(), fs[1].Addr())

	short, cancelShort := context.WithTimeout(c, 200*time.Millisecond)
	defer cancelShort()
	_, err = ex.Lookup(short, "orcrt_test_no_such")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.EqualError(t, err, `executor: lookup of "orcrt_test_no_such": not exported with orcrt_export; "orcrt_test_no_such": the controller answered: Symbols not found: [ orcrt_test_no_such ]: context deadline exceeded`)

	require.NoError(t, os.WriteFile(stop, nil, 0o644))
	select {
	case <-jlDone:
	case <-time.After(callTimeout):
		t.Fatalf("llvm-jitlink did not exit after main returned: %s", jlOut.String())
	}
	assert.Equal(t, 7, jitlink.ProcessState.ExitCode(), "llvm-jitlink's status is main's: %s", jlOut.String())
	assert.Empty(t, jlOut.String(), "llvm-jitlink printed nothing about the lookups")
	select {
	case err := <-o.done:
		assert.NoError(t, err)
	case <-time.After(callTimeout):
		t.Fatal("Serve did not return after llvm-jitlink exited")
	}
}
