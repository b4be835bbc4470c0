//go:build cgo && linux

package serve

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCutField(t *testing.T) {
	h, r, ok := cutField("session\x0012")
	assert.Equal(t, []any{"session", "12", true}, []any{h, r, ok})
	h, _, ok = cutField("ready")
	assert.Equal(t, "ready", h)
	assert.False(t, ok)
}
