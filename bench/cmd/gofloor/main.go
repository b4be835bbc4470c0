//go:build linux && cgo

package main

// The same DT_NEEDED libraries, in the same order, as orcrt-executor.

// #cgo LDFLAGS: -Wl,--push-state,--no-as-needed -l:libstdc++.so.6 -l:libgcc_s.so.1 -lm -Wl,--pop-state
import "C"

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gofloor:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 1 || !strings.HasPrefix(args[0], "filedescs=") {
		return fmt.Errorf("usage: ORCRT_GOFLOOR_SETUP=FILE gofloor filedescs=IN,OUT")
	}
	in, out, ok := strings.Cut(strings.TrimPrefix(args[0], "filedescs="), ",")
	inFD, err1 := strconv.Atoi(in)
	outFD, err2 := strconv.Atoi(out)
	if !ok || err1 != nil || err2 != nil {
		return fmt.Errorf("bad descriptors %q", args[0])
	}
	setup, err := os.ReadFile(os.Getenv("ORCRT_GOFLOOR_SETUP"))
	if err != nil {
		return err
	}
	for len(setup) > 0 { // raw writes, as the descriptors are blocking
		n, err := syscall.Write(outFD, setup)
		if err != nil {
			return fmt.Errorf("writing Setup: %w", err)
		}
		setup = setup[n:]
	}
	var buf [4096]byte
	for {
		n, err := syscall.Read(inFD, buf[:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("reading: %w", err)
		}
		if n == 0 {
			return nil
		}
	}
}
