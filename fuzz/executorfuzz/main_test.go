//go:build cgo && linux

package executorfuzz

import (
	"os"
	"testing"

	"github.com/orcgo/orcrt/internal/fuzzmin"
)

// TestMain keeps the jitdump files of fuzzed perf-support calls out of
// $HOME: one directory for the run (each fuzzing worker is a process of
// its own and makes its own), removed at the end.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "executorfuzz-jitdump-")
	if err != nil {
		panic(err)
	}
	os.Setenv("JITDUMPDIR", dir)
	fuzzmin.Bound()
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
