//go:build libfuzzer

package libfuzzer

// #include <stdlib.h>
import "C"

import (
	"fmt"
	"os"
	"runtime/debug"
	"sort"
	"unsafe"

	"github.com/orcgo/orcrt/fuzz/internal/target"
)

var body target.Body

// Floor is the name of a target every shim has, whose body does nothing:
// its rate is libFuzzer's own ceiling for the shim's binary (its
// counters, the cgo call), as fuzz/internal/enginefloor's is go test's.
const Floor = "FuzzFloor"

// Register selects, from a package's targets (by FuzzX name) and Floor,
// the one named name, whose body LLVMFuzzerTestOneInput runs. A shim
// calls it from an init function; an unknown name exits the process.
func Register(name string, targets map[string]target.Body) {
	body = targets[name]
	if name == Floor {
		body = func(target.T, []byte) {}
	}
	if body == nil {
		names := make([]string, 0, len(targets))
		for n := range targets {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(os.Stderr, "libfuzzer: no target %q (build with -ldflags=-X=main.name=NAME; targets %v)\n", name, names)
		os.Exit(2)
	}
	// A panic on any other goroutine (a session's, in wirefuzz) raises
	// SIGABRT, which libFuzzer handles as a crash, instead of exiting.
	debug.SetTraceback("crash")
	// The live heap of a libFuzzer process is a few MiB, so that with
	// GOGC=100 an input that allocates 64 KiB (a payload claim the
	// Reader allocates eagerly) brought a collection every few dozen
	// inputs, and the scavenger handed the pages back to the kernel in
	// between: each such input paid page faults and its share of a cycle
	// (an input of FuzzFrames' that claims 1 MiB: 29-38 µs; 12-16 µs thus).
	// Collect only when the heap reaches gcLimit instead, unless the
	// environment sets GOGC or GOMEMLIMIT. The allocation bounds the
	// bodies check count bytes allocated, not the heap's size; a target
	// that leaks still grows into libFuzzer's -rss_limit_mb (2 GiB).
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(gcLimit)
		debug.SetGCPercent(-1)
	}
}

// gcLimit is the heap size at which a libFuzzer process collects (see
// Register): large enough that a collection is rare, small enough that
// the heap soon reuses its pages (with 512 MiB, runs of a few seconds
// were slower: the heap was still growing into fresh pages).
const gcLimit = 128 << 20

//export LLVMFuzzerTestOneInput
func LLVMFuzzerTestOneInput(data *C.char, size C.size_t) C.int {
	// libFuzzer owns data and reuses it after the call: the body gets a
	// copy, as a native target's input may be retained.
	in := C.GoBytes(unsafe.Pointer(data), C.int(size))
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "panic: %v\n\n%s\n", r, debug.Stack())
			C.abort()
		}
	}()
	target.Run(body, in)
	return 0
}
