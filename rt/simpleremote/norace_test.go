//go:build !race

package simpleremote_test

const raceEnabled = false
