//go:build orcrt_cpuprofile

package cpuprofile

import (
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
)

// Start writes a CPU profile of this run to $ORCRT_CPUPROFILE
// when it is set ("%p" in it becomes the process id, so that many runs
// can be merged with `go tool pprof -proto`; see profiles/pgo.sh). It is
// opt-in, built only with -tags orcrt_cpuprofile (runtime/pprof and
// its compression cost about a millisecond of start-up), and only for
// collecting the PGO profile: a run that ends
// through a fatal signal or a JIT'd exit() writes no profile.
func Start() (stop func()) {
	path := os.Getenv("ORCRT_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	path = strings.ReplaceAll(path, "%p", strconv.Itoa(os.Getpid()))
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "orcrt-executor: ORCRT_CPUPROFILE: %v\n", err)
		if f != nil {
			f.Close()
		}
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
