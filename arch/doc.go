// Package arch is orcrt's portable facade over the machine details that
// executable memory depends on: the OS page size, cache line sizes, the
// instruction-cache maintenance that publishes freshly written code
// ([FlushICache]) and cross-core instruction synchronization
// ([SyncCores]).
//
// Per architecture:
//
//   - amd64 (package arch/amd64): instruction fetch is coherent with data
//     stores, FlushICache is a documented no-op; the line size comes from
//     CPUID.
//   - arm64 (package arch/arm64): FlushICache runs DC CVAU / DSB ISH /
//     IC IVAU / DSB ISH / ISB over the range, driven by CTR_EL0 (read once).
//   - anything else: [Supported] is false and FlushICache panics; package
//     slab refuses executable protections there.
//
// Concurrency: every function is safe for concurrent use and none
// allocates after the first call.
package arch
