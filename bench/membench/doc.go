// Package membench benchmarks where JIT'd code lives and how it is called:
// the slab's alloc-finalize-free cycle (beside a memmove of the same size),
// the cost of filling fresh pages (page faults) against filling present
// ones (copy only), and native calls into JIT'd memory beside two
// references: an empty cgo call (the floor) and a no-op C function with the
// wrapper trampoline's signature (what cgo charges for five arguments and a
// 16-byte struct result). The package has no API; see membench_test.go.
//
// Run:
//
//	go test -run '^$' -bench . -count 10 ./bench/membench | tee new.txt
//	go tool benchstat new.txt
package membench
