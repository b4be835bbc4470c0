//go:build cgo

package jitbench

/*
#include <stdint.h>

// The same function as BenchmarkJITCall's JIT'd one, compiled into the
// binary: what a Go program pays to call it through cgo.
static int64_t jitbench_inc(int64_t x) { return x + 1; }
*/
import "C"

// cgoInc calls jitbench_inc through cgo (reference for BenchmarkJITCall).
func cgoInc(x int64) int64 { return int64(C.jitbench_inc(C.int64_t(x))) }
