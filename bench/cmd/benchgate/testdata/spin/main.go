// Command spin runs a loop of the iterations its argument names: the
// qemuinsn test (TestQemuinsnCounts) counts it at several lengths.
package main

import (
	"os"
	"strconv"
)

var sink uint64

func main() {
	n, err := strconv.Atoi(os.Args[1])
	if err != nil {
		os.Exit(2)
	}
	for i := range n {
		sink = sink*31 + uint64(i)
	}
}
