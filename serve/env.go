//go:build cgo

package serve

import (
	"os"
	"strconv"
	"time"

	"github.com/orcgo/orcrt/rt/simpleremote"
)

// defaultDrainTimeout is how long orcrt-executor waits, after its
// controller has gone, for calls still running in JIT'd code (a JIT'd
// main that never returns) before it exits anyway with status 1. The
// stock executor waits for ever, outliving a killed llvm-jitlink.
const defaultDrainTimeout = 10 * time.Second

// drainTimeout is ORCRT_DRAIN_TIMEOUT (a Go duration such as "30s"; "0"
// waits for ever, as the stock executor) or defaultDrainTimeout, as
// executor.Options.DrainTimeout: there 0 is the default and negative for
// ever.
func drainTimeout() time.Duration {
	if v, ok := os.LookupEnv("ORCRT_DRAIN_TIMEOUT"); ok {
		if d, err := time.ParseDuration(v); err == nil && d >= 0 {
			if d == 0 {
				return -1
			}
			return d
		}
	}
	return defaultDrainTimeout
}

// wireOptions sets the largest message the executor accepts from
// ORCRT_MAX_MESSAGE_SIZE (bytes, header included), else the default
// (simpleremote.DefaultMaxMessageSize, 1 GiB): an initialize carries the
// content of a whole link graph, so a controller linking larger objects
// needs more.
func wireOptions() *simpleremote.Options {
	o := &simpleremote.Options{ReadSpin: simpleremote.ExecutorReadSpin}
	if v, err := strconv.ParseUint(os.Getenv("ORCRT_MAX_MESSAGE_SIZE"), 10, 64); err == nil {
		o.MaxMessageSize = v
	}
	return o
}
