// Package libfuzzer runs a fuzz target's body (fuzz/internal/target)
// under libFuzzer: it exports LLVMFuzzerTestOneInput, which runs the body
// a shim registered (fuzz/spsfuzz/libfuzzer, fuzz/wirefuzz/libfuzzer, and
// fuzz/spsfuzz/llvmoracle, whose FuzzLLVM links LLVM's C++) on
// each input. A failed invariant or any panic of the body prints the
// failure and its stack and aborts, so libFuzzer records a crash (a
// panic in another goroutine aborts too: the traceback level is
// "crash").
//
// Built only with the libfuzzer tag, which also compiles the runtime's
// libFuzzer hooks (runtime/libfuzzer.go registers the 8-bit counters
// -d=libfuzzer inserts; without the tag libFuzzer sees no coverage):
//
//	go build -buildmode=c-archive -tags libfuzzer -gcflags=all=-d=libfuzzer \
//		-ldflags=-X=main.name=FuzzDecode -o FuzzDecode.a ./fuzz/spsfuzz/libfuzzer
//	clang-22 -fsanitize=fuzzer FuzzDecode.a -o FuzzDecode -lpthread
//
// .ci/fuzz-libfuzzer.sh and fuzz/oss-fuzz/build.sh do this for every
// target.
package libfuzzer
