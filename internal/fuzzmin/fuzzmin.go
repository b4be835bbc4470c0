package fuzzmin

import (
	"flag"
	"os"
	"testing"
)

// Limit is the minimization budget per input Bound sets: a tenth of a
// second keeps a young corpus, where new inputs come every second or so,
// fuzzing most of the time. Minimize a crasher with an explicit
// -test.fuzzminimizetime.
const Limit = "100ms"

// Bound sets -test.fuzzminimizetime to Limit unless the command line sets
// it. Call it from TestMain before m.Run.
func Bound() {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.fuzzminimizetime" })
	if !set {
		if err := flag.Set("test.fuzzminimizetime", Limit); err != nil {
			panic("fuzzmin: " + err.Error())
		}
	}
}

// Main is a fuzz package's whole TestMain: Bound, then run the tests.
func Main(m *testing.M) {
	Bound()
	os.Exit(m.Run())
}
