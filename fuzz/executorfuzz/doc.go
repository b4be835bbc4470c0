// Package executorfuzz holds the fuzz targets of the whole executor: the
// wire reader and the dispatcher together, and every bootstrap wrapper
// function on its own.
//
//	go test -run '^$' -fuzz '^FuzzExecutor$' -fuzztime 10m ./fuzz/executorfuzz
//	go test -run '^$' -fuzz '^FuzzWrappers$' -fuzztime 10m ./fuzz/executorfuzz
//
// FuzzExecutor serves a complete executor Executor — the Session with
// every LLVM 22 bootstrap service registered, exactly as orcrt-executor
// builds it — over an in-memory connection fed an arbitrary (mutated)
// framed controller stream, and checks for every input: no panic (a panic
// on any goroutine crashes the fuzzing process); Serve returns within a
// bounded time, with nil or a stock terminal protocol error, also when the
// controller goes silent instead of closing (the harness then disconnects
// locally) or the executor detaches while the input is still arriving;
// services shut down without errors that name a panic; the executor's
// output is a well-formed stream (Setup first, Results with TagAddr 0 for
// calls that were made, nothing after a Hangup, which only a local
// disconnect sends); and heap allocation stays within a small multiple of
// the input size however large the sizes the headers and payloads claim.
//
// FuzzWrappers picks a bootstrap wrapper function with the first input
// byte and calls it in-process with the rest as its argument bytes, on one
// Executor whose state (reservations, regions, handles) carries over from
// input to input (it is rebuilt every few hundred inputs). Every call must
// return exactly once, within a bounded time, with an out-of-band error or
// bytes that decode as the wrapper's SPS result type.
//
// # What is not fuzzed: the trust boundary
//
// The protocol deliberately lets the controller act on raw addresses
// (README, "Trust boundary"); random bytes there would only prove that
// writing to random memory corrupts it. Excluded, exactly:
//
//   - the six __llvm_orc_bootstrap_mem_write_* wrappers (stores at
//     controller-chosen addresses);
//   - __llvm_orc_bootstrap_mem_read_buffers_wrapper and _read_strings
//     (reads whose extent the controller chooses; the fixed-width reads
//     are fuzzed: their size is bounded by the argument and a fault ends
//     the call with an error);
//   - run_as_main / run_as_void_function / run_as_int_function (they jump
//     to a controller-chosen address);
//   - llvm_orc_registerEHFrameAllocAction (hands controller-chosen memory
//     to libgcc's unwinder as an eh-frame section).
//
// Code addresses in the fuzzed inputs — CallWrapper targets and
// allocation-action function addresses — are sanitized so that no input
// can name real code by accident (a random number can fall into the
// executable's text): they pass unchanged only below 0x10000 or when they
// are placeholders for a fuzzed bootstrap function, and are otherwise
// moved to a non-canonical address. They still reach the executor's code
// guard (package rt/codemap), which must refuse them with an error.
//
// # Placeholders
//
// Any 8 bytes of a payload that read, little-endian, as 0xFA110C0D_KKIIIIII
// stand for an address the fuzzer cannot know: kind K=0x00 is bootstrap
// symbol number I (in sorted order, unsafe ones left out), K=0x01 is
// reservation I>>16 plus offset I&0xffff (regions the harness reserves in
// the memory manager before serving), K=0x02 (FuzzWrappers) is address
// number I>>16 observed in an earlier result (reservations, handles,
// keys) plus offset I&0xffff. Seeds use them; the fuzzer mutates them.
//
// Inputs of FuzzExecutor start with a mode byte as in fuzz/wirefuzz (read
// chunk size, silent controller, early local detach). Failing inputs go to
// testdata/fuzz/FuzzX/ and run with plain go test.
package executorfuzz
