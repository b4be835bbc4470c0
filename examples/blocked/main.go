// Command blocked is a Go JIT host that ends even while its JIT'd code
// is blocked: on SIGTERM, on Ctrl-C and when its controller is killed.
//
//	llvm-jitlink -oop-executor=./blocked plugin.o &   # then: kill -9 it,
//	                                                  # or kill the host
//
// The plugin's main calls host_wait, a Go function that never returns.
// Serve gets a ctx that SIGTERM and SIGINT cancel; either that or the end
// of the connection ends the session, and Options.DrainTimeout (default
// 10 s, BLOCKED_DRAIN_TIMEOUT here) later Serve gives up on the blocked
// call with an *executor.DrainTimeoutError and the host exits 1.
package main

/*
extern void host_wait(void);
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
	"unsafe"

	"github.com/orcgo/orcrt/executor"
)

// host_wait blocks for ever, as a host call waiting for an event that
// never comes would: the JIT'd main calling it never returns.
//
//export host_wait
func host_wait() {
	fmt.Fprintf(os.Stderr, "blocked: pid %d: the plugin waits in host_wait\n", os.Getpid())
	select {}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	opts := executor.Options{
		HostSymbols: []executor.HostSymbol{{Name: "host_wait", Addr: uintptr(unsafe.Pointer(C.host_wait))}},
	}
	if v := os.Getenv("BLOCKED_DRAIN_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			fmt.Fprintln(os.Stderr, "blocked: BLOCKED_DRAIN_TIMEOUT:", err)
			os.Exit(2)
		}
		opts.DrainTimeout = d
	}
	ex, conn, err := executor.Open(ctx, os.Args[1:], opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "blocked:", err)
		os.Exit(1)
	}
	err = ex.Serve(ctx, conn)
	if dte := (*executor.DrainTimeoutError)(nil); errors.As(err, &dte) {
		// Not ex.Close: it would wait for the blocked call. Exiting ends
		// the thread stuck in it.
		fmt.Fprintln(os.Stderr, "blocked:", err)
		os.Exit(1)
	}
	ex.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "blocked:", err)
		os.Exit(1)
	}
}
