//go:build !linux

package main

import (
	"fmt"
	"os"
	"runtime"
)

// wholerun needs Linux (process groups, wait4's rusage, prctl) and the
// Linux builds of LLVM 22.
func main() {
	fmt.Fprintf(os.Stderr, "wholerun: not supported on %s (Linux only)\n", runtime.GOOS)
	os.Exit(1)
}
