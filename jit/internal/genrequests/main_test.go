package main

import (
	"bytes"
	"os"
	"testing"
)

// TestGenerated fails when jit/requests_gen.go or
// jit/controller/requests.inc is not what jit/requests.txt makes.
func TestGenerated(t *testing.T) {
	outs, err := generate("../..")
	if err != nil {
		t.Fatalf("%v\n(then run `go generate ./jit/...`)", err)
	}
	for path, want := range outs {
		got, err := os.ReadFile("../../" + path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("jit/%s is stale (not what jit/%s makes, or edited by hand): run `go generate ./jit/...`", path, sourcePath)
		}
	}
}
