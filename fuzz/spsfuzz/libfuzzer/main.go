//go:build libfuzzer

// Command libfuzzer is the libFuzzer shim of package spsfuzz's targets:
// built as a c-archive with -ldflags=-X=main.name=FuzzX and linked with
// clang -fsanitize=fuzzer, it runs FuzzX's body (see
// fuzz/internal/libfuzzer).
package main

import (
	"github.com/orcgo/orcrt/fuzz/internal/libfuzzer"
	"github.com/orcgo/orcrt/fuzz/internal/target"
	"github.com/orcgo/orcrt/fuzz/spsfuzz"
)

var name = "FuzzDecode" // -ldflags=-X=main.name=FuzzX

func init() {
	libfuzzer.Register(name, map[string]target.Body{
		"FuzzDecode":    spsfuzz.Decode,
		"FuzzRoundTrip": spsfuzz.RoundTrip,
		"FuzzDiff":      spsfuzz.Diff,
	})
}

func main() {}
