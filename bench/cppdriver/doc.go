// Package cppdriver measures an executor from LLVM 22's own C++
// controller: csrc/driver.cpp launches orcrt-executor or the stock
// llvm-jitlink-executor over two pipes (filedescs=IN,OUT) and drives it
// through SimpleRemoteEPC and FDSimpleRemoteEPCTransport, as llvm-jitlink
// -oop-executor does, so the bytes on the wire are LLVM 22's. Calls:
// empty (mem_write_uint8s of nothing), write4KiB and write1MiB
// (writeBuffers into reserved memory), alloc-cycle (SimpleSegmentAlloc of
// 16 KiB RX, 8 KiB R, 8 KiB RW: reserve, initialize, release) and lookup
// (printf in the process handle). -pin puts driver and executor on CPU 0;
// -tcp connects over loopback TCP as llvm-jitlink -oop-executor-connect
// does (Nagle on, header and payload in two writes) instead of pipes.
// -connect PORT|unix:PATH times connect → Setup against a running
// orcrt-executor serve (call=connect-setup, BENCH start): the mean as
// ns/op and the connections' median as median-ns/op.
// The C++ is outside this directory: a Go package without cgo may not
// hold .cpp files.
//
//	bench/cppdriver/run.sh                  # COUNT=10, BENCHTIME=500ms
//	COUNT=2 BENCHTIME=100ms OUT=/tmp/c.txt bench/cppdriver/run.sh
//	bench/cppdriver/build.sh /tmp/cppdriver # needs llvm-22-dev, clang++-22
//	/tmp/cppdriver [-pin] [-label L] EXECUTOR all|empty|... 500ms|100x
//
// Lines are Go benchmark format; compare with go tool benchstat -col
// /executor. Without llvm-22-dev both scripts print a skip and exit 0.
package cppdriver
