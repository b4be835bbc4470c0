// Package spsbench holds the SPS codec benchmarks (package sps), each
// beside the reference measured in the same run: a plain copy() for the
// memory-bound shapes and LLVM 22's own C++ codec (testdata/llvmbench.cpp)
// for the finalize request.
//
//	go test -run '^$' -bench . -count=5 ./bench/spsbench
//
// Benchmarks are named BenchmarkSPS/op=encode|decode/shape=...,
// BenchmarkCopy/size=... and BenchmarkSPSLLVM/op=.../shape=finalize so that
// benchstat can slice them.
//
// The finalize-encode target (≤ 1.3× a 32 KiB copy) stays missed at
// ~1.5×, for reasons measured and written down in RATIONALE.md
// ("Benchmarks"). The package has no non-test code beyond this comment;
// it is safe to run concurrently with anything.
package spsbench
