//go:build cgo

package dylib_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/cbuild"
	"github.com/orcgo/orcrt/native/codemap"
	"github.com/orcgo/orcrt/service/dylib"
	"github.com/orcgo/orcrt/sps"
)

// TestOpenRefreshesCodeMap: a library opened through the manager is code
// for package codemap at once — the first call into it is a hit, not a
// miss waiting for a rebuild — while its data is not code.
func TestOpenRefreshesCodeMap(t *testing.T) {
	src, answer, data := testLib()
	so := cbuild.SharedObject(t, "orcrtdylibcodemap", src)
	m := dylib.New()
	hnd, err := m.Open(so, 0)
	require.NoError(t, err)
	r, err := m.Resolve(hnd, []sps.LookupElement{{Name: []byte(answer), Required: true}, {Name: []byte(data), Required: true}})
	require.NoError(t, err)
	fn, obj := uintptr(r[0].Value.Addr), uintptr(r[1].Value.Addr)
	before := codemap.ReadStats()
	assert.NoError(t, codemap.Check(fn))
	assert.Equal(t, before.Misses, codemap.ReadStats().Misses, "the library's text was known before the first call")
	assert.ErrorIs(t, codemap.Check(obj), codemap.ErrNotCode, "a data symbol")
}
