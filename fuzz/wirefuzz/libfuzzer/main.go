//go:build libfuzzer

// Command libfuzzer is the libFuzzer shim of package wirefuzz's targets:
// built as a c-archive with -ldflags=-X=main.name=FuzzX and linked with
// clang -fsanitize=fuzzer, it runs FuzzX's body (see
// fuzz/internal/libfuzzer).
package main

import (
	"github.com/orcgo/orcrt/fuzz/internal/libfuzzer"
	"github.com/orcgo/orcrt/fuzz/internal/target"
	"github.com/orcgo/orcrt/fuzz/wirefuzz"
)

var name = "FuzzFrames" // -ldflags=-X=main.name=FuzzX

func init() {
	libfuzzer.Register(name, map[string]target.Body{
		"FuzzReader": wirefuzz.Reader,
		"FuzzFrames": wirefuzz.Frames,
	})
}

func main() {}
