//go:build linux && cgo

// Command jitfilter is a filter engine: it compiles a C expression in x,
// given on the command line, into int64_t filter(int64_t x) with package
// jit, then calls it from 8 goroutines on 1,000,000 numbers and prints
// how many pass.
//
//	jitfilter 'x % 7 == 3 && x > 1000'
//
// It needs orcrt-jit-controller (make jit-controller; found through
// ORCRT_JIT_CONTROLLER or PATH). Linux with cgo only, as package jit.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/jit"
)

const (
	goroutines = 8
	calls      = 1_000_000
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: jitfilter 'C expression in x'")
		os.Exit(2)
	}
	if err := run(context.Background(), os.Args[1], jit.Options{}, os.Stdout); err != nil {
		var ce *jit.CompileError
		if errors.As(err, &ce) {
			for _, d := range ce.Diagnostics {
				fmt.Fprintln(os.Stderr, d)
			}
		}
		fmt.Fprintln(os.Stderr, "jitfilter:", err)
		os.Exit(1)
	}
}

// run compiles expr and counts the numbers in [0, calls) it accepts.
func run(ctx context.Context, expr string, opts jit.Options, out io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	j, err := jit.Start(ctx, opts)
	if err != nil {
		return err
	}
	defer j.Close()

	src := "#include <stdint.h>\nint64_t filter(int64_t x) {\n  return (" + expr + ");\n}\n"
	m, err := j.AddC(ctx, "filter.c", src)
	if err != nil {
		return err
	}
	fs, err := m.Lookup(ctx, "filter")
	if err != nil {
		return err
	}
	filter := call.Typed1[int64, int64](fs[0])

	var passed atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	t0 := time.Now()
	for g := range goroutines {
		wg.Go(func() {
			// One pin for the whole batch: each call is then a bare
			// native call, at the fastest tier the function's facts allow.
			errs <- filter.Func().Batch(func() {
				n := int64(0)
				for x := int64(g); x < calls; x += goroutines {
					if filter.CallHeld(x) != 0 {
						n++
					}
				}
				passed.Add(n)
			})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	el := time.Since(t0)
	fmt.Fprintf(out, "%d of %d pass (%d calls in %v, %.1f ns/call on %d goroutines, tier %s)\n",
		passed.Load(), calls, calls, el.Round(time.Millisecond), float64(el.Nanoseconds())/calls*goroutines, goroutines, filter.Func().Tier())
	return m.Remove(ctx)
}
