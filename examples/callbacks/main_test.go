package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orcgo/orcrt/examples/internal/exampletest"
)

func TestCallbacks(t *testing.T) {
	exampletest.Require(t, "/usr/lib/llvm-22/bin/llvm-jitlink")
	host := exampletest.BuildHost(t)
	plugin := exampletest.CompileC(t, "plugin/plugin.c")
	r := exampletest.Start(t, host, nil, plugin).Wait()
	// Each of 8 goroutines and the batch sums (i%100)^2 over 10,000 calls:
	// 100 rounds of 0^2 + ... + 99^2 = 328,350.
	const perRun = 100 * 328350
	assert.Equal(t, 0, r.Exit, r.Stderr)
	assert.Equal(t, fmt.Sprintf("plugin: sum=%d\n", 9*perRun), r.Stdout)
	assert.Contains(t, r.Stderr, "callbacks: 80000 guarded calls from 8 goroutines")
}
