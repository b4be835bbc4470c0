package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orcgo/orcrt/examples/internal/exampletest"
)

func TestHost718(t *testing.T) {
	exampletest.Require(t, "/usr/lib/llvm-22/bin/llvm-jitlink")
	host := exampletest.BuildHost(t)
	plugin := exampletest.CompileC(t, "plugin/plugin.c")
	r := exampletest.Start(t, host, nil, plugin).Wait()
	// Twice the sum of 0..999, guarded then batched: 2 * 2 * 499,500.
	assert.Equal(t, 0, r.Exit, r.Stderr)
	assert.Equal(t, "plugin: add=5 sum=1998000\n", r.Stdout)
}
