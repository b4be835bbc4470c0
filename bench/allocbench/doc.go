// Package allocbench benchmarks the LLVM memory-manager service (package
// alloc) on its hot paths, each beside a reference measured in the same
// run:
//
//   - BenchmarkAllocActions: initialize + deinitialize of a region with
//     four action pairs whose finalize and dealloc halves are native no-op
//     machine code in JIT'd memory (eight native calls), the bare run of
//     four such actions, and the floor: four empty cgo calls.
//   - BenchmarkMemoryManager: the per-link-graph cycle of llvm-jitlink's
//     default memory manager — reserve, initialize 16 KiB R-X + 8 KiB R +
//     8 KiB RW, release — through the wrapper functions (direct Go calls,
//     no wire), beside what the stock executor's system calls cost for the
//     same cycle (mmap, copy, two mprotects, munmap, fresh page faults).
//
// Tests in the package pin the cycle's system-call budget (slab.Stats) and
// its allocations. The package has no API; see allocbench_test.go.
//
// Run:
//
//	go test -run '^$' -bench . -count 10 ./bench/allocbench | tee new.txt
//	go tool benchstat new.txt
package allocbench
