package spsfuzz

import (
	"testing"

	"github.com/orcgo/orcrt/fuzz/internal/target"
)

// The native targets: go test's engine runs the bodies in targets.go
// (fuzz/spsfuzz/libfuzzer runs the same bodies under libFuzzer).

// addSeeds adds Seeds.
func addSeeds(f *testing.F) {
	seeds, err := Seeds(".")
	if err != nil {
		f.Fatal(err)
	}
	for _, b := range seeds {
		f.Add(b)
	}
}

// fuzz runs body as f's target.
func fuzz(f *testing.F, body target.Body) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { body(t, data) })
}

// FuzzDecode runs Decode.
func FuzzDecode(f *testing.F) { fuzz(f, Decode) }

// FuzzRoundTrip runs RoundTrip.
func FuzzRoundTrip(f *testing.F) { fuzz(f, RoundTrip) }

// FuzzDiff runs Diff.
func FuzzDiff(f *testing.F) { fuzz(f, Diff) }
