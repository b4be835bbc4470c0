// Command host718 is a Go host written from README.md as it stood at
// commit 718c928, before calls pinned their code: the README's smallest
// host, plus the entry-point calls its bullet list described (ex.Func,
// Func.Call, ex.Batch around Func.CallHeld). Its test builds it against
// the tree, so the deprecated Executor.Batch keeps such hosts building
// (issue 41). Do not modernize it: its age is its point.
package main

/*
#include <stdint.h>
extern int32_t host_add(int32_t, int32_t);
extern int64_t host_run(uintptr_t fn, int32_t calls);
*/
import "C"

import (
	"context"
	"os"
	"unsafe"

	"github.com/orcgo/orcrt/executor"
)

var ex *executor.Executor

//export host_add
func host_add(a, b C.int32_t) C.int32_t { return a + b }

// host_run calls the JIT'd int fn(int) calls times under a token each,
// then calls times in one batch, and returns the sum of the results.
//
//export host_run
func host_run(fn C.uintptr_t, calls C.int32_t) C.int64_t {
	f, err := ex.Func(uintptr(fn))
	if err != nil {
		panic(err)
	}
	var sum int64
	for i := range int32(calls) {
		r, err := f.Call(i)
		if err != nil {
			panic(err)
		}
		sum += int64(r)
	}
	//lint:ignore SA1019 the 718c928 API this host was written against
	err = ex.Batch(func() {
		for i := range int32(calls) {
			sum += int64(f.CallHeld(i))
		}
	})
	if err != nil {
		panic(err)
	}
	return C.int64_t(sum)
}

func main() {
	ctx := context.Background()
	e, conn, err := executor.Open(ctx, os.Args[1:], executor.Options{
		HostSymbols: []executor.HostSymbol{
			{Name: "host_add", Addr: uintptr(unsafe.Pointer(C.host_add))},
			{Name: "host_run", Addr: uintptr(unsafe.Pointer(C.host_run))},
		},
	})
	if err != nil {
		panic(err)
	}
	ex = e
	defer ex.Close()
	if err := ex.Serve(ctx, conn); err != nil {
		panic(err)
	}
}
