// Command repl is a Go program that hosts a C++ REPL: clang-repl runs it
// as its out-of-process executor, and the C++ typed at the prompt calls
// a Go service, a key-value store published as host symbols.
//
//	clang-repl --oop-executor=$PWD/repl --orc-runtime=<liborc_rt-x86_64.a>
//	clang-repl> extern "C" void kv_put(const char *, int);
//	clang-repl> kv_put("answer", 42);
package main

/*
#include <stdint.h>
extern void kv_put(char *key, int32_t value);
extern int32_t kv_get(char *key);
*/
import "C"

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"sync"
	"unsafe"

	"github.com/orcgo/orcrt/executor"
)

var store struct {
	mu sync.Mutex
	m  map[string]int32
}

//export kv_put
func kv_put(key *C.char, value C.int32_t) {
	store.mu.Lock()
	defer store.mu.Unlock()
	store.m[C.GoString(key)] = int32(value)
}

//export kv_get
func kv_get(key *C.char) C.int32_t {
	store.mu.Lock()
	defer store.mu.Unlock()
	return C.int32_t(store.m[C.GoString(key)])
}

func main() {
	store.m = map[string]int32{}
	ctx := context.Background()
	ex, conn, err := executor.Open(ctx, os.Args[1:], executor.Options{
		HostSymbols: []executor.HostSymbol{
			{Name: "kv_put", Addr: uintptr(unsafe.Pointer(C.kv_put))},
			{Name: "kv_get", Addr: uintptr(unsafe.Pointer(C.kv_get))},
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "repl:", err)
		os.Exit(1)
	}
	defer ex.Close()
	if err := ex.Serve(ctx, conn); err != nil {
		fmt.Fprintln(os.Stderr, "repl:", err)
		os.Exit(1)
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	for _, k := range slices.Sorted(maps.Keys(store.m)) {
		fmt.Fprintf(os.Stderr, "repl: store: %s=%d\n", k, store.m[k])
	}
}
