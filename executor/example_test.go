//go:build cgo

package executor_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/rt/dialect"
)

// ExampleOpen is the main of a Go JIT host: started by a controller
// (llvm-jitlink -oop-executor=./host, clang-repl --oop-executor=./host),
// it serves the connection the command line names, speaking the
// controller's LLVM dialect, with one host function published to the JIT'd
// code. See examples/ for complete hosts with their plugins.
func ExampleOpen() {
	var hostAdd uintptr // e.g. uintptr(unsafe.Pointer(C.host_add)), a cgo export
	ctx := context.Background()
	ex, conn, err := executor.Open(ctx, os.Args[1:], executor.Options{
		HostSymbols: []executor.HostSymbol{{Name: "host_add", Addr: hostAdd}},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer ex.Close()
	if err := ex.Serve(ctx, conn); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// ExampleNew builds an executor for a given LLVM release without a
// connection, as tests and in-process hosts do.
func ExampleNew() {
	ex, err := executor.New(executor.Options{Dialect: dialect.LLVM19})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ex.Close()
	_, ok := ex.Symbols().Lookup("__llvm_orc_SimpleExecutorDylibManager_lookup_wrapper")
	fmt.Println(ex.Dialect().Name, "lookup wrapper:", ok)
	// Output:
	// LLVM 19 lookup wrapper: true
}

// ExampleExecutor_Lookup finds a function the JIT'd program exported by
// name and calls it with its C signature, int64_t filter(int64_t). The
// JIT'd C side is
//
//	int orcrt_export(const char *name, void *fn);
//	int64_t filter(int64_t x) { return x % 7 == 0 ? x : 0; }
//	int main(void) { orcrt_export("filter", (void *)filter); ... }
//
// Lookup runs beside Serve, which serves the controller meanwhile.
func ExampleExecutor_Lookup() {
	var ex *executor.Executor // from executor.Open, being served
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f, err := ex.Lookup(ctx, "filter")
	if err != nil {
		fmt.Fprintln(os.Stderr, err) // not exported within 10 s
		return
	}
	filter := call.Typed1[int64, int64](f)
	r, err := filter.Call(21)
	switch {
	case errors.Is(err, call.ErrReleased):
		// The controller released the code (clang-repl's %quit): it
		// is never run again; look it up anew if it is redefined.
	case err != nil:
		// call.ErrShutDown: the session is ending.
	default:
		fmt.Println(r)
	}
}
