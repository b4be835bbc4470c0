// Package membench benchmarks where JIT'd code lives and how it is called:
// the slab's alloc-finalize-free cycle (beside a memmove of the same size),
// the cost of filling fresh pages (page faults) against filling present
// ones (copy only), and native calls into JIT'd memory beside three
// references: an empty cgo call (the floor), a no-op C function with the
// fast wrapper path's signature (two pointers, no result: the floor of a
// cgo call shaped like native.CallWrapper's), and one with the old
// trampoline's signature (what cgo charges for five arguments and a
// 16-byte struct result, which the slow path still uses). TestNativeCallFloor
// (ORCRT_MEMBENCH_FLOOR=1) measures the same kinds robustly on a noisy
// machine: best of 300 interleaved blocks. The package has no API; see
// membench_test.go.
//
// The kind=wrapper figure's limit (bench/targets.txt) and goal
// (bench/goals.txt) are judged against kind=cgo-empty; RATIONALE.md
// ("Benchmarks") says why cgo's own entry and exit are the floor.
//
// Run:
//
//	go test -run '^$' -bench . -count 10 ./bench/membench | tee new.txt
//	go tool benchstat new.txt
package membench
