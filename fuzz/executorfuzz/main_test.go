//go:build cgo && linux

package executorfuzz

import (
	"os"
	"testing"

	"github.com/orcgo/orcrt/internal/fuzzmin"
)

func TestMain(m *testing.M) {
	fuzzmin.Bound()
	os.Exit(m.Run())
}
