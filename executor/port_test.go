//go:build cgo

package executor_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/rt/dialect"
)

// The port publishes controller calls and wrappers in Setup by name.
func TestPort(t *testing.T) {
	ex, err := executor.New(executor.Options{
		Release:         22,
		ControllerCalls: []string{"host_req_a", "host_req_b"},
		Wrappers: []executor.Wrapper{{Name: "host_ready", Fn: func(args []byte) ([]byte, error) {
			return append([]byte("ok:"), args...), nil
		}}},
	})
	require.NoError(t, err)
	defer ex.Close()
	assert.Same(t, dialect.LLVM22, ex.Dialect())
	a, okA := ex.Symbols().Lookup("host_req_a")
	b, okB := ex.Symbols().Lookup("host_req_b")
	require.True(t, okA && okB)
	assert.NotEqual(t, a, b, "each controller call has an address of its own")
	_, ok := ex.ControllerFunc("host_req_a")
	assert.True(t, ok)
	_, ok = ex.ControllerFunc("host_req_c")
	assert.False(t, ok)

	w, ok := ex.Symbols().Lookup("host_ready")
	require.True(t, ok)
	r, ok := ex.RunWrapper(w, []byte("x"))
	require.True(t, ok)
	assert.NoError(t, r.Err())
	assert.Equal(t, "ok:x", string(r.Bytes()))
	_, ok = ex.RunWrapper(a, nil)
	assert.False(t, ok, "a controller call's tag is no wrapper")

	// Not attached: a controller call fails at once.
	f, _ := ex.ControllerFunc("host_req_b")
	f.CallInline(nil, func(r executor.WrapperResult) { assert.Error(t, r.Err()) })

	_, err = executor.New(executor.Options{Release: 3})
	assert.Error(t, err)
	_, err = executor.New(executor.Options{ControllerCalls: []string{"dup", "dup"}})
	assert.Error(t, err)
}
