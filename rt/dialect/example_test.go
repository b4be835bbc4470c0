package dialect_test

import (
	"fmt"

	"github.com/orcgo/orcrt/rt/dialect"
)

// Example picks a dialect as ORCRT_LLVM does and shows what differs.
func Example() {
	d, err := dialect.Parse("15.0.6")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Name, "bootstrap map in Setup:", d.SetupBootstrapMap, "finalize protocol:", d.Memory == dialect.MemoryFinalize)
	_, err = dialect.Parse("13")
	fmt.Println(err)
	// Output:
	// LLVM 14-16 bootstrap map in Setup: false finalize protocol: true
	// dialect: LLVM 13 is not supported (supported: 14, 15, 16, 19, 22, 23, 24)
}
