// Package enginefloor holds FuzzFloor, a fuzz target that does nothing:
// its rate is the fuzzing engine's own ceiling on this machine (a fresh
// goroutine, coverage reset and scan, mutation per input), the reference
// `make fuzz-rate` prints beside the real targets.
package enginefloor
