//go:build !race

package exampletest

func raceFlag() string { return "false" }
