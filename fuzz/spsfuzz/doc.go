// Package spsfuzz holds the fuzz targets for package sps and the simple
// reference decoder (ref.go) they compare it with.
//
//	go test -run '^$' -fuzz '^FuzzDecode$'    -fuzztime 60s ./fuzz/spsfuzz
//	go test -run '^$' -fuzz '^FuzzRoundTrip$' -fuzztime 60s ./fuzz/spsfuzz
//	go test -run '^$' -fuzz '^FuzzDiff$'      -fuzztime 60s ./fuzz/spsfuzz
//
// Every target takes one input whose first byte selects a top-level
// message shape (each LLVM 22 wrapper argument list and result of
// docs/protocol.md §4.3 and §5, the LLVM 14-19 signatures, the
// FinalizeRequest reuse path, the Setup payload, every codec alone and
// as a sequence element, ...; see shapes.go) and whose rest is the
// message. Seeds come from the LLVM-generated golden vectors in
// sps/testdata/golden/vectors.txt and, where none fits, are made by hand
// (seeds.go). Inputs that once failed live under testdata/fuzz/FuzzX/
// and run as regression tests with plain go test.
//
// Each target's body is a function of this package (Decode, RoundTrip,
// Diff in targets.go, with the seeds: Seeds) that two engines run: go
// test's (FuzzX in fuzz_test.go) and libFuzzer's (the shim in libfuzzer/,
// built by fuzz/oss-fuzz/build.sh and run by .ci/fuzz-libfuzzer.sh, which
// writes what libFuzzer finds back into testdata/fuzz/FuzzX/).
//
// The reference decoder was written here, so a misreading of LLVM's
// format it shares with package sps would pass FuzzDiff. LLVM 22's own C++
// is the second oracle: FuzzLLVM (libFuzzer only; llvmoracle/, whose
// oracle.cpp decodes each input with SPSArgList<...>::deserialize into the
// types LLVM decodes that message into) and TestLLVMOracle (go test: the
// checked-in seeds and testdata/fuzz/*/ through the same oracle.cpp built
// as a program with clang++-22) require orcrt and LLVM to accept and reject
// the same inputs and, on acceptance, to consume the same bytes and to
// re-encode byte for byte alike (values LLVM keeps in a StringMap: equal
// after LLVM decodes orcrt's re-encoding). Every shape is covered (each
// wrapper argument list and result of every dialect, Setup of LLVM 14 and
// 16-22, finalize requests, every codec alone) except OracleExcluded's:
// orcrt's span rule and maps keyed by integers, which no LLVM type
// decodes. Inputs on which LLVM's decoder is undefined behaviour (a bool
// byte other than 0 or 1; see Undefined) are not judged.
//
// The reference decoder is stateless; RefDecode is safe for concurrent
// use and returns memory it owns.
package spsfuzz
