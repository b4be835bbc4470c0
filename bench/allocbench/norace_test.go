//go:build !race

package allocbench

const raceEnabled = false
