// Package jitmaps counts a process's JIT'd code mappings, for the
// examples that show none is left behind.
package jitmaps

import (
	"bufio"
	"os"
	"strings"
)

// AnonExec counts this process's executable mappings that are not backed
// by a file: JIT'd code. It returns -1 if /proc/self/maps cannot be read.
func AnonExec() int {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return -1
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 5 && strings.Contains(fields[1], "x") && (len(fields) == 5 || strings.HasPrefix(fields[5], "[anon")) {
			n++
		}
	}
	return n
}
