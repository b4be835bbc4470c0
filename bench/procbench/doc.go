// Package procbench measures round trips between a controller
// (rt/simpleremote/wiretest) and a real executor process — orcrt-executor
// or LLVM 22's stock llvm-jitlink-executor — over the pipes `llvm-jitlink
// -oop-executor` uses, beside the floor of the same traffic between two
// processes. TestMain builds orcrt-executor (with the PGO profile when it
// exists); ORCRT_PROCBENCH_EXECUTOR names a prebuilt binary instead.
// Without /usr/lib/llvm-22/bin/llvm-jitlink-executor the stock cases skip
// (fail under ORCRT_REQUIRE_LLVM=1).
//
//   - RoundTrip/transport=pipe/call=empty/executor=E: mem_write_uint8s
//     with an empty sequence, the cheapest call both executors have.
//   - RoundTrip/.../call=write1MiB: mem_write_buffers of 1 MiB into
//     reserved memory.
//   - RoundTrip/.../call=alloc-cycle: reserve 32 KiB, initialize 16 KiB RX,
//     8 KiB R and 8 KiB RW, release; what llvm-jitlink does per link graph.
//   - PipePingPong/size=32B|1MiB|1MiB-pipe1MiB: the floor, a child process
//     reading a request of that size and answering 32 bytes, with the
//     request pipe enlarged to 1 MiB in the last case, as orcrt-executor
//     enlarges its input pipe.
//   - Session/op=start-setup|start-setup-exit: process start until Setup,
//     and until exit after end of input.
//
// Their limits (bench/targets.txt) and goals (bench/goals.txt) are
// ratios to the stock executor and to PipePingPong in the same run.
// sidebyside.sh runs the set round by round and prints orcrt beside stock:
//
//	bench/procbench/sidebyside.sh            # COUNT=10 by default
//	go test -run '^$' -bench . -count 10 ./bench/procbench | tee new.txt
//	go tool benchstat -col /executor new.txt
//
// The package has no non-test code.
package procbench
