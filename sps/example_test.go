package sps_test

import (
	"encoding/hex"
	"fmt"

	"github.com/orcgo/orcrt/sps"
)

// Example encodes the arguments of the memory manager's reserve wrapper,
// SPSExpected<SPSExecutorAddr>(SPSExecutorAddr, uint64_t), decodes them
// as the executor does, and decodes a result.
func Example() {
	args := sps.MemoryManagerReserve.AppendArgs(nil, 0x1000, 4096)
	fmt.Println(hex.EncodeToString(args))

	inst, size, err := sps.MemoryManagerReserve.DecodeArgs(args)
	fmt.Printf("%#x %d %v\n", uint64(inst), size, err)

	res, err := sps.MemoryManagerReserve.DecodeResult([]byte{1, 0, 0x20, 0, 0, 0, 0, 0, 0})
	fmt.Printf("%#x %v %v\n", uint64(res.Value), res.Err, err)

	_, _, err = sps.MemoryManagerReserve.DecodeArgs(args[:5])
	fmt.Println(err != nil)
	// Output:
	// 00100000000000000010000000000000
	// 0x1000 4096 <nil>
	// 0x2000 <nil> <nil>
	// true
}
