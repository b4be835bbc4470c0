// Package wirefuzz holds the fuzz targets of the SimpleRemoteEPC wire
// layer (rt/simpleremote):
//
//	go test -run '^$' -fuzz '^FuzzReader$' -fuzztime 120s ./fuzz/wirefuzz
//	go test -run '^$' -fuzz '^FuzzFrames$' -fuzztime 60s  ./fuzz/wirefuzz
//
// FuzzReader feeds a controller->executor byte stream to an rt.Session
// attached through a simpleremote CA over an in-memory connection and
// checks: no panic; the session ends in bounded time; the Session is
// notified exactly once, with nil or a stock terminal error; the output is
// a well-formed stream; heap allocation stays within a small multiple of
// the input size. FuzzFrames checks the Reader alone against a reference
// parser.
//
// The first input byte selects the harness mode (read chunk size, silent
// controller; for FuzzFrames a silent controller, bits 7 and 6 both set,
// is a Read that returns 0, nil at the end of the stream, and bit 4
// selects NewReader's default size limit); the rest is the stream. Failing inputs go to
// testdata/fuzz/FuzzX/ and run with plain go test.
//
// Each target's body is a function of this package (Reader, Frames in
// targets.go, with the seeds: Seeds) that two engines run: go test's
// (FuzzX in fuzz_test.go) and libFuzzer's (the shim in libfuzzer/, built
// by fuzz/oss-fuzz/build.sh and run by .ci/fuzz-libfuzzer.sh).
package wirefuzz
