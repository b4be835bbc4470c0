// Command filter is a Go JIT host that looks JIT'd code up by name and
// calls it with its real C signature: the plugin defines
// int64_t filter(int64_t) and exports it with orcrt_export, the host
// finds it with Executor.Lookup and calls it 1,000,000 times from 8
// goroutines.
//
//	llvm-jitlink -oop-executor=$PWD/filter plugin.o
//
// With FILTER_HAMMER=1 the host instead calls whatever filter is
// exported, for as long as the controller runs, looking it up again each
// time the controller releases it (clang-repl's %undo): the calls never
// run freed code.
package main

/*
#include <stdint.h>
extern int32_t host_wait(void);
extern void host_hammering(void);
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/examples/internal/jitmaps"
	"github.com/orcgo/orcrt/executor"
)

const (
	goroutines = 8
	calls      = 1_000_000
)

var done = make(chan struct{}) // closed when the host is done calling

// host_wait keeps the plugin's main (and so its code) alive until the host
// is done with it.
//
//export host_wait
func host_wait() C.int32_t {
	<-done
	return 0
}

var (
	hammered  atomic.Int64 // calls the hammer made
	hammering = make(chan struct{})
)

// host_hammering returns once the hammer has made its first calls, so
// that a release that follows runs under calls in flight.
//
//export host_hammering
func host_hammering() { <-hammering }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ex, conn, err := executor.Open(ctx, os.Args[1:], executor.Options{
		HostSymbols: []executor.HostSymbol{
			{Name: "host_wait", Addr: uintptr(unsafe.Pointer(C.host_wait))},
			{Name: "host_hammering", Addr: uintptr(unsafe.Pointer(C.host_hammering))},
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "filter:", err)
		os.Exit(1)
	}
	defer ex.Close()
	work := run
	if os.Getenv("FILTER_HAMMER") != "" {
		work = hammer
	}
	before := jitmaps.AnonExec()
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		work(ctx, ex)
	}()
	if err := ex.Serve(ctx, conn); err != nil {
		fmt.Fprintln(os.Stderr, "filter:", err)
		os.Exit(1)
	}
	<-finished
	fmt.Fprintf(os.Stderr, "filter: anonymous executable mappings before=%d after=%d\n", before, jitmaps.AnonExec())
}

// run looks filter up, calls it calls times from goroutines goroutines and
// checks the sum against Go's own.
func run(ctx context.Context, ex *executor.Executor) {
	defer close(done)
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	f, err := ex.Lookup(lctx, "filter")
	if err != nil {
		fmt.Fprintln(os.Stderr, "filter:", err)
		return
	}
	filter := call.Typed1[int64, int64](f)
	var sum atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for g := range goroutines {
		wg.Go(func() {
			var s int64
			for i := g; i < calls; i += goroutines {
				r, err := filter.Call(int64(i))
				if err != nil {
					fmt.Fprintln(os.Stderr, "filter:", err)
					return
				}
				s += r
			}
			sum.Add(s)
		})
	}
	wg.Wait()
	took := time.Since(start)
	want := int64(0)
	for i := int64(0); i < calls; i++ {
		if i%7 == 0 {
			want += i
		}
	}
	fmt.Fprintf(os.Stderr, "filter: %d calls from %d goroutines in %v (%v a call): sum %d, want %d\n",
		calls, goroutines, took.Round(time.Millisecond), took/calls, sum.Load(), want)
}

// hammer calls the current filter from goroutines goroutines until the
// session ends, looking it up again after each release.
func hammer(ctx context.Context, ex *executor.Executor) {
	defer close(done)
	var once sync.Once
	var released atomic.Int64
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for {
				f, err := ex.Lookup(ctx, "filter")
				if err != nil {
					return // the session ended
				}
				filter := call.Typed1[int64, int64](f)
				n := int64(0)
				for ; ; n++ {
					if n%1000 == 999 {
						once.Do(func() { close(hammering) })
						time.Sleep(100 * time.Microsecond) // leave the controller a core
					}
					if _, err = filter.Call(n); err != nil {
						break
					}
				}
				hammered.Add(n)
				if !errors.Is(err, call.ErrReleased) && !errors.Is(err, call.ErrShutDown) {
					fmt.Fprintln(os.Stderr, "filter:", err)
					return
				}
				released.Add(1)
			}
		})
	}
	wg.Wait()
	fmt.Fprintf(os.Stderr, "filter: hammer: %d calls, %d goroutines refused after the release\n", hammered.Load(), released.Load())
}
