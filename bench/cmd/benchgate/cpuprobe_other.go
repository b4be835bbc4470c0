//go:build !amd64 || !cgo

package main

import "runtime"

// cpuFeatures: the host's counts are cachegrind's on amd64, where the
// probe needs cgo (as the benchmarks do).
func cpuFeatures() string { return runtime.GOARCH }
