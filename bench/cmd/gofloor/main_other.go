//go:build !(linux && cgo)

package main

import (
	"fmt"
	"os"
	"runtime"
)

// gofloor measures the floor of orcrt-executor, which needs Linux and cgo.
func main() {
	fmt.Fprintf(os.Stderr, "gofloor: not supported on %s or without cgo\n", runtime.GOOS)
	os.Exit(1)
}
