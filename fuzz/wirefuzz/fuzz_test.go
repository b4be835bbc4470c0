package wirefuzz

import (
	"testing"

	"github.com/orcgo/orcrt/fuzz/internal/target"
)

// The native targets: go test's engine runs the bodies in targets.go
// (fuzz/wirefuzz/libfuzzer runs the same bodies under libFuzzer).

// fuzz runs body as f's target, with Seeds.
func fuzz(f *testing.F, body target.Body) {
	for _, b := range Seeds() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) { body(t, data) })
}

// FuzzReader runs Reader.
func FuzzReader(f *testing.F) { fuzz(f, Reader) }

// FuzzFrames runs Frames.
func FuzzFrames(f *testing.F) { fuzz(f, Frames) }
