// Command callbacks is a Go JIT host to which JIT'd code hands entry
// points: the plugin passes host_run a function pointer, and the host
// calls the JIT'd function from many goroutines, each call under a
// keepalive token (call.Func), and in a batch under one token.
//
//	llvm-jitlink -oop-executor=./callbacks plugin.o
package main

/*
#include <stdint.h>
extern int64_t host_run(uintptr_t fn, int32_t goroutines, int32_t calls);
*/
import "C"

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"
	"unsafe"

	"github.com/orcgo/orcrt/executor"
)

var ex *executor.Executor

// host_run calls the JIT'd int fn(int) calls times from each of
// goroutines goroutines, then once more calls times in a batch, and
// returns the sum of all results.
//
//export host_run
func host_run(fn C.uintptr_t, goroutines, calls C.int32_t) C.int64_t {
	f, err := ex.Func(uintptr(fn))
	if err != nil {
		fmt.Fprintln(os.Stderr, "callbacks:", err)
		return -1
	}
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		sum int64
	)
	start := time.Now()
	for range int(goroutines) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s int64
			for i := range int32(calls) {
				r, err := f.Call(i % 100)
				if err != nil {
					fmt.Fprintln(os.Stderr, "callbacks:", err)
					return
				}
				s += int64(r)
			}
			mu.Lock()
			sum += s
			mu.Unlock()
		}()
	}
	wg.Wait()
	guarded := time.Since(start)
	start = time.Now()
	err = f.Batch(func() {
		for i := range int32(calls) {
			sum += int64(f.CallHeld(i % 100))
		}
	})
	batched := time.Since(start)
	if err != nil {
		fmt.Fprintln(os.Stderr, "callbacks:", err)
		return -1
	}
	fmt.Fprintf(os.Stderr, "callbacks: %d guarded calls from %d goroutines in %v, %d batched calls in %v\n",
		int(goroutines)*int(calls), goroutines, guarded, calls, batched)
	return C.int64_t(sum)
}

func main() {
	ctx := context.Background()
	e, conn, err := executor.Open(ctx, os.Args[1:], executor.Options{
		HostSymbols: []executor.HostSymbol{{Name: "host_run", Addr: uintptr(unsafe.Pointer(C.host_run))}},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "callbacks:", err)
		os.Exit(1)
	}
	ex = e // before Serve: JIT'd code may call host_run from then on
	defer ex.Close()
	if err := ex.Serve(ctx, conn); err != nil {
		fmt.Fprintln(os.Stderr, "callbacks:", err)
		os.Exit(1)
	}
}
