// Command hostfuncs is a Go JIT host whose JIT'd C plugin calls Go
// functions by name. Run it as the executor of llvm-jitlink:
//
//	llvm-jitlink -oop-executor=./hostfuncs plugin.o
//
// The host publishes host_add and host_log as host symbols: the plugin's
// references to them resolve to these cgo exports without the binary
// exporting them dynamically.
package main

/*
#include <stdint.h>
extern int32_t host_add(int32_t a, int32_t b);
extern void host_log(char *msg);
*/
import "C"

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"unsafe"

	"github.com/orcgo/orcrt/executor"
)

var adds atomic.Int64

//export host_add
func host_add(a, b C.int32_t) C.int32_t {
	adds.Add(1)
	return a + b
}

//export host_log
func host_log(msg *C.char) {
	fmt.Fprintf(os.Stderr, "hostfuncs: plugin says %q\n", C.GoString(msg))
}

func main() {
	ctx := context.Background()
	ex, conn, err := executor.Open(ctx, os.Args[1:], executor.Options{
		HostSymbols: []executor.HostSymbol{
			{Name: "host_add", Addr: uintptr(unsafe.Pointer(C.host_add))},
			{Name: "host_log", Addr: uintptr(unsafe.Pointer(C.host_log))},
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostfuncs:", err)
		os.Exit(1)
	}
	defer ex.Close()
	if err := ex.Serve(ctx, conn); err != nil {
		fmt.Fprintln(os.Stderr, "hostfuncs:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "hostfuncs: host_add was called %d times\n", adds.Load())
}
