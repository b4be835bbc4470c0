// Package executorfuzz holds the fuzz targets of the whole executor: the
// wire reader and the dispatcher together, and every bootstrap wrapper
// function on its own.
//
//	go test -run '^$' -fuzz '^FuzzExecutor$' -fuzztime 10m ./fuzz/executorfuzz
//	go test -run '^$' -fuzz '^FuzzWrappers$' -fuzztime 10m ./fuzz/executorfuzz
//
// FuzzExecutor serves a complete Executor, as orcrt-executor builds it,
// over an in-memory connection fed a mutated framed controller stream,
// and checks: no panic; Serve returns in bounded time with nil or a stock
// terminal error, also when the controller goes silent or the executor
// detaches early; services shut down without panics; the output is a
// well-formed stream (Setup first, Results with TagAddr 0 for calls that
// were made, nothing after a Hangup); heap allocation stays within a small
// multiple of the input size. Inputs start with a mode byte as in
// fuzz/wirefuzz.
//
// FuzzWrappers picks a bootstrap wrapper with the first input byte and
// calls it in-process with the rest as its arguments, on one Executor
// whose state carries over between inputs (rebuilt every few hundred).
// Every call must return exactly once, in bounded time, with an
// out-of-band error or bytes that decode as the wrapper's result type.
//
// FuzzConfinedWrappers fuzzes the wrappers that act on controller-chosen
// addresses by design (README, "Trust boundary"; RATIONALE.md, "fuzz"):
// the six mem_write_* wrappers, mem_read_buffers and mem_read_strings,
// the three run_as_* wrappers, EH-frame registration (every dialect's
// name) and a call of a JIT'd wrapper. The harness rewrites the addresses
// their arguments carry, decoding them as the wrapper does, into memory it
// owns: a sandbox checked against a shadow copy after every call, a page
// of empty EH-frame sections, libc's abs and getpid, or addresses the
// code guard refuses. FuzzWrappers and FuzzExecutor leave these out: code
// addresses in their inputs are moved to non-canonical addresses unless
// below 0x10000 or a placeholder, so they reach native/codemap, which must
// refuse them.
//
// Placeholders: any 8 payload bytes that read, little-endian, as
// 0xFA110C0D_KKIIIIII stand for an address the fuzzer cannot know. K=0x00
// is bootstrap symbol number I (sorted, unsafe ones left out); K=0x01 is
// reservation I>>16 plus offset I&0xffff (reserved by the harness before
// serving); K=0x02 (FuzzWrappers) is address number I>>16 seen in an
// earlier result plus offset I&0xffff; K=0x03 (FuzzWrappers) is dylib
// handle number I, opened by the harness (0: the process, 1: libm);
// K=0x04 (FuzzWrappers) is shared-memory reservation I>>16 the harness
// made, plus offset I&0xffff. Failing inputs go to
// testdata/fuzz/FuzzX/ and run with plain go test.
package executorfuzz
