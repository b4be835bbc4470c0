// Command lookup is a Go JIT host that looks a JIT'd function up by name
// without any help from the C code: the plugin defines
// int64_t filter(int64_t) and does not call orcrt_export; the host's
// Executor.Lookup asks the controller, which runs LLVM's ORC runtime.
//
//	llvm-jitlink -oop-executor=$PWD/lookup -orc-runtime=liborc_rt-x86_64.a plugin.o
//
// It then calls filter 1,000,000 times from 8 goroutines and checks the
// sum. Without -orc-runtime, or under clang-repl, the controller cannot be
// asked and the host prints why. LOOKUP_TIMEOUT (a Go duration, default
// 10s) bounds the lookup of filter; LOOKUP_MISSING names a function to
// look up too, which the controller does not know, and prints its error.
// LOOKUP_CPUPROFILE writes a CPU profile of the calls there, with JIT'd
// functions named when the controller sends their names (llvm-jitlink
// -perf-support): go tool pprof -top lookup PROFILE.
package main

/*
#include <stdint.h>
extern int32_t host_wait(void);
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/native/jitsyms"
)

var done = make(chan struct{}) // closed when the host is done with filter

// host_wait keeps the plugin's main (and so its code) alive until the host
// is done with it.
//
//export host_wait
func host_wait() C.int32_t {
	<-done
	return 0
}

func main() {
	if n, err := strconv.ParseInt(os.Getenv("LOOKUP_CALLS"), 10, 64); err == nil && n > 0 {
		calls = n
	}
	if os.Getenv("LOOKUP_CPUPROFILE") != "" {
		jitsyms.EnableProfiling() // once, before any profile: JIT'd frames named
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ex, conn, err := executor.Open(ctx, os.Args[1:], executor.Options{
		LearnLookupRoute: true,
		HostSymbols:      []executor.HostSymbol{{Name: "host_wait", Addr: uintptr(unsafe.Pointer(C.host_wait))}},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "lookup:", err)
		os.Exit(1)
	}
	defer ex.Close()
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		defer close(done)
		run(ctx, ex)
	}()
	if err := ex.Serve(ctx, conn); err != nil {
		fmt.Fprintln(os.Stderr, "lookup:", err)
		os.Exit(1)
	}
	<-finished
}

// Goroutines of hammer, and its calls: LOOKUP_CALLS, default 1,000,000.
const goroutines = 8

var calls = int64(1_000_000)

// hammer calls filter calls times from goroutines goroutines and checks
// the sum: 3x+1 summed over x in [0, calls).
func hammer(filter call.Func1[int64, int64]) error {
	sums := make([]int64, goroutines)
	errs := make([]error, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for x := int64(g); x < calls; x += goroutines {
				r, err := filter.Call(x)
				if err != nil {
					errs[g] = err
					return
				}
				sums[g] += r
			}
		})
	}
	wg.Wait()
	var sum int64
	for g := range goroutines {
		if errs[g] != nil {
			return errs[g]
		}
		sum += sums[g]
	}
	want := 3*(calls-1)*calls/2 + calls
	if sum != want {
		return fmt.Errorf("sum of %d calls is %d, want %d", calls, sum, want)
	}
	fmt.Fprintf(os.Stderr, "lookup: %d calls of filter from %d goroutines, sum %d\n", calls, goroutines, sum)
	return nil
}

// run looks filter up and calls it.
func run(ctx context.Context, ex *executor.Executor) {
	timeout := 10 * time.Second
	if v, err := time.ParseDuration(os.Getenv("LOOKUP_TIMEOUT")); err == nil {
		timeout = v
	}
	lctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	f, err := ex.Lookup(lctx, "filter")
	if err != nil {
		fmt.Fprintln(os.Stderr, "lookup:", err)
		if errors.Is(err, executor.ErrNoLookupRoute) {
			fmt.Fprintln(os.Stderr, "lookup: the controller cannot be asked for JIT'd symbols")
		}
		return
	}
	filter := call.Typed1[int64, int64](f)
	r, err := filter.Call(20)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lookup:", err)
		return
	}
	fmt.Fprintf(os.Stderr, "lookup: filter(20) = %d\n", r)
	if path := os.Getenv("LOOKUP_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "lookup:", err)
			return
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	if err := hammer(filter); err != nil {
		fmt.Fprintln(os.Stderr, "lookup:", err)
		return
	}
	if name := os.Getenv("LOOKUP_MISSING"); name != "" {
		mctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		_, err := ex.Lookup(mctx, name)
		fmt.Fprintln(os.Stderr, "lookup: missing:", err)
	}
}
