// Package wirefuzz holds the fuzz targets of the SimpleRemoteEPC wire
// layer (rt/simpleremote):
//
//	go test -run '^$' -fuzz '^FuzzReader$' -fuzztime 120s ./fuzz/wirefuzz
//	go test -run '^$' -fuzz '^FuzzFrames$' -fuzztime 60s  ./fuzz/wirefuzz
//
// FuzzReader feeds an arbitrary controller->executor byte stream to a real
// rt.Session attached through a simpleremote CA over an in-memory
// connection and checks, for every input: no panic; the session ends within
// a bounded time (no hang, including local-disconnect and nested-call
// paths); the Session is notified exactly once, with nil or one of the
// stock terminal errors; the executor's output is a well-formed stream
// (Setup first, Results with TagAddr 0 answering calls that were made,
// executor call sequence numbers 0..n-1, nothing after Hangup); and heap
// allocation stays within a small multiple of the input size, whatever
// sizes the headers claim.
//
// FuzzFrames checks the message Reader alone against a simple reference
// parser: same messages, same verdict, bounded allocation.
//
// Inputs: the first byte selects the harness mode (read chunk size; whether
// the controller goes silent instead of closing, so the executor disconnects
// locally), the rest is the stream. Seeds are valid sessions and every
// fatal case, built with wiretest's frame builders. Failing inputs go to
// testdata/fuzz/FuzzX/ and run with plain go test.
package wirefuzz
