package serve

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]uint64{"": 0, "4096": 4096, "8K": 8 << 10, "2m": 2 << 20, "4G": 4 << 30, "1T": 1 << 40} {
		got, err := ParseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"G", "4GB", "-1", "x"} {
		_, err := ParseSize(in)
		assert.Error(t, err, in)
	}
}
