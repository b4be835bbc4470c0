package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orcgo/orcrt/examples/internal/exampletest"
)

// TestDetachSurvivesKilledController: the controller is killed with
// SIGKILL while the plugin runs; the host keeps calling the plugin, then
// shuts down, after which calls are refused, the plugin's EH frames are
// deregistered (its dealloc actions ran) and its code is unmapped.
func TestDetachSurvivesKilledController(t *testing.T) {
	exampletest.Require(t, "/usr/lib/llvm-22/bin/llvm-jitlink")
	host := exampletest.BuildHost(t)
	plugin := exampletest.CompileC(t, "plugin/plugin.c")
	run := exampletest.Start(t, host, nil, plugin)
	run.WaitFor("plugin: registered\n")
	run.Kill()
	run.WaitFor("detach: after shutdown")
	r := run.Wait()
	assert.Equal(t, 128+9, r.Exit, "llvm-jitlink died by SIGKILL")
	assert.Contains(t, r.Stderr, "detach: the controller has gone")
	assert.Contains(t, r.Stderr, "detach: after the controller left, counter=1000, EH frame registered=true")
	assert.Contains(t, r.Stderr, "detach: after shutdown: call refused=true (executor: the session is shutting down")
	assert.Contains(t, r.Stderr, "EH frame registered=false, still code=false, anonymous executable mappings before=0 after=0")
}
