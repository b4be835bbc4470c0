// Command detach is a Go JIT host that keeps JIT'd code running after its
// controller has gone: with executor.EndDetach, the end of the
// connection detaches the Session instead of shutting it down, so the
// plugin's code and memory stay until the host shuts down.
//
//	llvm-jitlink -oop-executor=./detach plugin.o &   # then: kill -9 it
//
// The plugin registers an entry point and parks in host_park until the
// controller is gone. The host then calls the entry point, shuts down
// (the plugin's dealloc actions run: its EH frames are deregistered and
// its memory released) and shows that further calls are refused.
package main

/*
#include <stdint.h>
extern void host_register(uintptr_t fn);
extern int32_t host_park(void);
*/
import "C"

import (
	"context"
	"fmt"
	"os"
	"sync"
	"unsafe"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/examples/internal/jitmaps"
	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/service/ehframe"
)

var (
	ex         *executor.Executor
	registered = make(chan uintptr, 1)
	gone       = make(chan struct{}) // closed when the controller has gone
)

//export host_register
func host_register(fn C.uintptr_t) { registered <- uintptr(fn) }

// host_park returns once the controller has gone.
//
//export host_park
func host_park() C.int32_t {
	<-gone
	return 0
}

func main() {
	ctx := context.Background()
	e, conn, err := executor.Open(ctx, os.Args[1:], executor.Options{
		EndOfInput: executor.EndDetach,
		HostSymbols: []executor.HostSymbol{
			{Name: "host_register", Addr: uintptr(unsafe.Pointer(C.host_register))},
			{Name: "host_park", Addr: uintptr(unsafe.Pointer(C.host_park))},
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "detach:", err)
		os.Exit(1)
	}
	ex = e
	before := jitmaps.AnonExec()
	if err := ex.Serve(ctx, conn); err != nil {
		fmt.Fprintln(os.Stderr, "detach:", err)
	}
	close(gone) // the plugin's main may return now
	fmt.Fprintln(os.Stderr, "detach: the controller has gone")

	var f call.Func
	select {
	case addr := <-registered:
		if f, err = ex.Func(addr); err != nil {
			fmt.Fprintln(os.Stderr, "detach:", err)
			os.Exit(1)
		}
	default:
		fmt.Fprintln(os.Stderr, "detach: the plugin registered nothing")
		os.Exit(1)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 250 {
				if _, err := f.Call(1); err != nil {
					fmt.Fprintln(os.Stderr, "detach:", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	last, _ := f.Call(0)
	fmt.Fprintf(os.Stderr, "detach: after the controller left, counter=%d, EH frame registered=%v\n",
		last, ehframe.FindFDE(f.Addr()) != 0)

	ex.Close() // shutdown: dealloc actions run, memory is released
	_, err = f.Call(1)
	_, notCode := ex.Func(f.Addr())
	fmt.Fprintf(os.Stderr, "detach: after shutdown: call refused=%v (%v), EH frame registered=%v, still code=%v, anonymous executable mappings before=%d after=%d\n",
		err != nil, err, ehframe.FindFDE(f.Addr()) != 0, notCode == nil, before, jitmaps.AnonExec())
}
