// Package amd64 holds the x86-64 side of orcrt's cache facade: the
// (documented no-op) instruction-cache flush and the cache-line size from
// CPUID.
//
// x86-64 keeps instruction fetch coherent with data stores in hardware
// (Intel SDM Vol. 3A §11.6 "Self-Modifying Code", AMD APM Vol. 2 §7.6.1),
// so publishing code needs no cache maintenance. For code written by one
// thread and executed by another ("cross-modifying code") the SDM asks the
// executing core to serialize; orcrt gets that from the mprotect that makes
// the page executable (it shoots down the other cores' TLBs with an IPI,
// whose IRET is serializing, and cores not running this process serialize
// on the context switch back), and arch.SyncCores is available for code
// published without a protection change.
//
// Concurrency: all functions are safe for concurrent use.
package amd64
