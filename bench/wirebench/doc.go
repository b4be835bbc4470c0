// Package wirebench holds the SimpleRemoteEPC wire benchmarks
// (rt/simpleremote), each beside its floor measured in the same run.
//
//	go test -run '^$' -bench . -count=10 ./bench/wirebench | tee new.txt
//	go tool benchstat new.txt
//
// The benchmarks:
//
//   - RoundTrip/transport=pipe|unix|tcp/call=empty|write1MiB|write1MiB-owned:
//     a wiretest Controller calls a trivial wrapper of an rt.Session
//     attached through a simpleremote CA over real pipes or sockets, in
//     one process, with no argument or a 1 MiB one; the result is empty.
//     The wrapper borrows its arguments (rt.BorrowArgs), so the CA recycles
//     the buffer; write1MiB-owned registers it owning them, so every
//     argument is a fresh allocation.
//   - PipePingPong/size=32B|1MiB and SocketPingPong/transport=unix|tcp/...:
//     the floor, the same traffic shape without the protocol.
//   - PipePingPongFresh/size=1MiB and Alloc/size=1MiB: references for
//     write1MiB-owned (a receiver that allocates every payload, and a bare
//     1 MiB allocation loop).
//
// The targets are measured against a real orcrt-executor process in
// bench/procbench. Every benchmark reports allocations. The package has
// no non-test code.
package wirebench
