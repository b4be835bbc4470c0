//go:build cgo

package executor_test

import (
	"context"
	"fmt"
	"os"

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
