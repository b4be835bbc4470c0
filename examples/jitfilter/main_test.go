//go:build linux && cgo

package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/jittest"
	"github.com/orcgo/orcrt/jit"
)

func TestFilter(t *testing.T) {
	var out strings.Builder
	opts := jit.Options{Controller: jittest.Controller(t)}
	require.NoError(t, run(context.Background(), "x % 7 == 3 && x > 1000", opts, &out))
	t.Log(out.String())
	// 3, 10, ... up to 999,999: 142,857 numbers of which 143 are <= 1000.
	assert.True(t, strings.HasPrefix(out.String(), "142714 of 1000000 pass"), out.String())
}

func TestFilterCompileError(t *testing.T) {
	opts := jit.Options{Controller: jittest.Controller(t)}
	err := run(context.Background(), "x +* 2", opts, &strings.Builder{})
	var ce *jit.CompileError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 3, ce.Diagnostics[0].Line)
}
