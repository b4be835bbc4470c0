package alloc

import (
	"fmt"
	"sync"
)

// maxReservation bounds one reservation to what the machine could ever
// commit: physical memory plus swap (at least 4 GiB, so that address
// space the controller plans with is never refused on a small machine).
// The stock executor's read-write mmap of a larger size fails under
// Linux's default heuristic overcommit with "Cannot allocate memory"; ours
// would succeed (the arena is MAP_NORESERVE) and then spend one byte of
// bookkeeping per page — a reserve of 40 TiB from a hostile or confused
// controller cost 10 GiB of Go heap and minutes of CPU before this bound
// (found by fuzz/executorfuzz). Refused requests get the stock text.
var maxReservation = sync.OnceValue(func() uint64 {
	limit := uint64(1) << 32
	if mem, err := physicalMemory(); err == nil {
		limit = max(limit, mem)
	}
	return limit
})

// errTooLarge is the refusal of a reservation above maxReservation.
func errTooLarge(size uint64) error {
	return &llvmError{msg: "Cannot allocate memory", err: fmt.Errorf("alloc: reserve of %#x bytes exceeds physical memory plus swap (%#x bytes)", size, maxReservation())}
}
