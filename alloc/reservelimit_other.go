//go:build !linux

package alloc

import "github.com/orcgo/orcrt/internal/unsupported"

// physicalMemory is unknown here (sysinfo(2) is Linux's): maxReservation
// keeps its 4 GiB floor.
func physicalMemory() (uint64, error) {
	return 0, unsupported.New("alloc", "physical memory size")
}
