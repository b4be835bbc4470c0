package enginefloor

import (
	"bytes"
	"testing"

	"github.com/orcgo/orcrt/internal/fuzzmin"
)

func TestMain(m *testing.M) { fuzzmin.Main(m) }

// FuzzFloor: inputs of the sizes the real targets' corpora have (a few
// bytes to a few KiB), and a body with a single branch.
func FuzzFloor(f *testing.F) {
	for _, n := range []int{1, 32, 200, 4096} {
		f.Add(bytes.Repeat([]byte{0xa5}, n))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 2 && data[0] == 'x' {
			_ = data[1]
		}
	})
}
