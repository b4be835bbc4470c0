// Package arm64 holds the AArch64 instruction-cache maintenance that makes
// freshly written code executable: the publish sequence in Go assembly and
// the CTR_EL0 (Cache Type Register) decoding it is driven by.
//
// [FlushICache] performs, for [addr, addr+n) with the start rounded down to
// the line size:
//
//	DC CVAU per data line        (skipped when CTR_EL0.IDC = 1)
//	DSB ISH
//	IC IVAU per instruction line (skipped when CTR_EL0.DIC = 1)
//	DSB ISH                      (with the IC loop)
//	ISB
//
// CTR_EL0 is read once and cached; the line sizes used are its minimum
// ones, so every line of a mixed-size hierarchy is covered. [DecodeCTR] is
// plain Go, tested on every host with values captured from real cores.
// After FlushICache returns no core's instruction cache holds a stale line
// for the range, but a core must still pass a context-synchronization
// event (an ISB, a system call) before running the new code: native
// executes an ISB before every call into JIT'd code (RATIONALE.md,
// "arch/arm64", also says what emulation cannot test).
//
// On real arm64 hardware run, at least:
//
//	go test -run 'TestRewriteSameBlock|TestPackedBlocks' -count=1 ./native/
//	go test -count=1 ./arch/... ./slab/ ./alloc/ ./native/ ./service/entry/
//	go test -race -count=1 ./...
//
// Concurrency: all functions are safe for concurrent use.
package arm64
