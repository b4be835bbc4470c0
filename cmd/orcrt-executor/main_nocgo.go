//go:build !cgo

package main

import (
	"fmt"
	"os"
)

// Without cgo there is no way to call JIT'd code: say so (after --help
// and --version, which work in every build).
func main() {
	if code, done := cliAction(os.Stdout, os.Args[1:]); done {
		os.Exit(code)
	}
	fmt.Fprintf(os.Stderr, "%s: built without cgo; orcrt-executor needs cgo (CGO_ENABLED=1)\n", os.Args[0])
	os.Exit(1)
}
