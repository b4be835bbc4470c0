//go:build race

package allocbench

// raceEnabled: the race detector changes escape analysis, so allocation
// counts are only pinned without it.
const raceEnabled = true
