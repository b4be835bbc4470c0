//go:build linux && cgo

package jit_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/jit"
)

// A filter typed by a user, compiled into the process and called from Go.
func Example() {
	ctx := context.Background()
	j, err := jit.Start(ctx, jit.Options{}) // finds orcrt-jit-controller
	if err != nil {
		fmt.Println(err)
		return
	}
	defer j.Close()

	m, err := j.AddC(ctx, "filter.c", `
#include <stdint.h>
int64_t filter(int64_t x) { return x % 7 == 3; }`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fs, err := m.Lookup(ctx, "filter")
	if err != nil {
		fmt.Println(err)
		return
	}
	filter := call.Typed1[int64, int64](fs[0])
	for _, x := range []int64{3, 4, 10} {
		ok, err := filter.Call(x)
		fmt.Println(x, ok, err)
	}
	fmt.Println(m.Remove(ctx))
	// Output:
	// 3 1 <nil>
	// 4 0 <nil>
	// 10 1 <nil>
	// <nil>
}

// Code that does not compile comes back with clang's diagnostics.
func ExampleCompileError() {
	ctx := context.Background()
	j, err := jit.Start(ctx, jit.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer j.Close()

	_, err = j.AddC(ctx, "bad.c", "long f(long x) {\n  return x +;\n}\n")
	var ce *jit.CompileError
	if errors.As(err, &ce) {
		d := ce.Diagnostics[0]
		fmt.Println(d.File, d.Line, d.Column, d.Severity, d.Message)
	}
	// Output:
	// bad.c 2 13 error expected expression
}
