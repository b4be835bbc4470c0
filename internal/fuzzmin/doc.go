// Package fuzzmin bounds the time the fuzzing engine spends minimizing
// each new input. Under go test's default (-fuzzminimizetime 60s),
// minimizing one input of a few KiB, or of a target that runs a whole
// session per input, stops fuzzing for up to a minute; orcrt's fuzz
// packages call Bound from TestMain. An explicit -test.fuzzminimizetime
// on the command line always wins.
//
// Safe for concurrent use; it only sets a flag, before m.Run.
package fuzzmin
