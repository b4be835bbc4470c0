package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orcgo/orcrt/examples/internal/exampletest"
)

func TestHostFunctions(t *testing.T) {
	exampletest.Require(t, "/usr/lib/llvm-22/bin/llvm-jitlink")
	host := exampletest.BuildHost(t)
	plugin := exampletest.CompileC(t, "plugin/plugin.c")
	r := exampletest.Start(t, host, nil, plugin).Wait()
	assert.Equal(t, 499500%256, r.Exit, "the plugin's main returns sum %% 256\n%s", r.Stderr)
	assert.Equal(t, "plugin: sum=499500\n", r.Stdout)
	assert.Contains(t, r.Stderr, `hostfuncs: plugin says "done adding"`)
	assert.Contains(t, r.Stderr, "hostfuncs: host_add was called 1000 times")
}
