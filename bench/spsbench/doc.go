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
// The finalize encode is judged against LLVM's C++ encoder and a 32 KiB
// copy (limits in bench/targets.txt and bench/goals.txt); RATIONALE.md
// ("Benchmarks") measures why the copy cannot be met. The package has no
// non-test code beyond this comment;
// it is safe to run concurrently with anything.
package spsbench
