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
}

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
