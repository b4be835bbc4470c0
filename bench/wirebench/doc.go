// Package wirebench holds the SimpleRemoteEPC wire benchmarks
// (rt/simpleremote), each beside its floor measured in the same run.
//
//	go test -run '^$' -bench . -count=10 ./bench/wirebench | tee new.txt
//	go tool benchstat new.txt
//
// The benchmarks:
//
//   - BenchmarkRoundTrip/transport=pipe|unix|tcp/call=empty|write1MiB|write1MiB-owned:
//     a wiretest Controller calls a trivial wrapper of an rt.Session
//     attached through a simpleremote CA, over real OS pipes or sockets,
//     in one process. call=empty sends no arguments; call=write1MiB sends
//     a 1 MiB argument (SetBytes 1 MiB). The result is empty either way,
//     so the wire carries a 32-byte header each way, plus the argument.
//     The wrapper borrows its arguments (rt.BorrowArgs), as the bootstrap
//     wrappers do, so the CA recycles the 1 MiB buffer;
//     call=write1MiB-owned registers it owning them (the default), so
//     every argument is a fresh allocation.
//   - BenchmarkPipePingPong/size=32B|1MiB: the floor — a raw request of
//     that many bytes over an OS pipe, read completely by a goroutine that
//     answers with 32 bytes over a second pipe. Same traffic shape as the
//     round trip (request, then a 32-byte reply), none of the protocol.
//   - BenchmarkSocketPingPong/transport=unix|tcp/size=32B|1MiB: the same
//     floor over the socket transports.
//   - BenchmarkPipePingPongFresh/size=1MiB and BenchmarkAlloc/size=1MiB:
//     references that explain write1MiB-owned: a payload handed to an
//     owning wrapper is never reused (the rt ownership contract), so each
//     1 MiB argument is a fresh Go allocation; PipePingPongFresh is the
//     ping-pong whose receiver allocates likewise, Alloc is a bare
//     make([]byte, 1 MiB) loop.
//
// The targets — an empty call within 3x the 32-byte pipe ping-pong,
// write1MiB within 1.5x the 1 MiB ping-pong — are measured against a
// real orcrt-executor process in bench/procbench. Every benchmark reports
// allocations. The package has no non-test code.
package wirebench
