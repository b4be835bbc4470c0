//go:build linux && cgo

package jit_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/jit"
)

// TestNotAController starts a program that is not a controller of these
// sources: a shell script that exits at once, named as the controller.
func TestNotAController(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "orcrt-jit-controller")
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\necho 'usage: something else' >&2\nexit 3\n"), 0o755))
	_, err := jit.Start(context.Background(), jit.Options{Controller: fake})
	var exit *jit.ControllerExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, "exit status 3", exit.State)
	assert.Contains(t, err.Error(), "usage: something else")
	assert.Contains(t, err.Error(), fake+" exited before it was ready (is it orcrt-jit-controller?)")
}
