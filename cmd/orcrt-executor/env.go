//go:build cgo

package main

import (
	"os"
	"strconv"
	"time"
)

// sessionEnv is what the environment sets for each session's executor:
// ORCRT_DRAIN_TIMEOUT, ORCRT_MAX_MESSAGE_SIZE and ORCRT_LLVM (cli.go's
// help describes them).
type sessionEnv struct {
	drainTimeout   time.Duration // as executor.Options.DrainTimeout
	maxMessageSize uint64        // 0: the default
	llvm           string
}

// readSessionEnv reads the environment. ORCRT_DRAIN_TIMEOUT is a Go
// duration such as "30s", "0" waiting for ever as the stock executor
// does; unset or malformed leaves executor.DefaultDrainTimeout.
func readSessionEnv() sessionEnv {
	var e sessionEnv
	if d, err := time.ParseDuration(os.Getenv("ORCRT_DRAIN_TIMEOUT")); err == nil && d >= 0 {
		e.drainTimeout = d
		if d == 0 {
			e.drainTimeout = -1
		}
	}
	if v, err := strconv.ParseUint(os.Getenv("ORCRT_MAX_MESSAGE_SIZE"), 10, 64); err == nil {
		e.maxMessageSize = v
	}
	e.llvm = os.Getenv("ORCRT_LLVM")
	return e
}
