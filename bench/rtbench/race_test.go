//go:build race

package rtbench

const raceEnabled = true
