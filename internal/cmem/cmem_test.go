//go:build cgo

package cmem_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/cmem"
)

func TestMallocHelpers(t *testing.T) {
	p, err := cmem.MallocCopy([]byte("hello"))
	require.NoError(t, err)
	assert.Equal(t, []byte("hello"), cmem.Bytes(p, 5))
	cmem.Free(p)
	p, err = cmem.MallocCopy(nil)
	require.NoError(t, err)
	assert.NotZero(t, p)
	cmem.Free(p)
	q := cmem.Malloc(0)
	assert.NotZero(t, q)
	cmem.Free(q)
	cmem.Free(0)
	assert.Nil(t, cmem.Bytes(1, 0))
}
