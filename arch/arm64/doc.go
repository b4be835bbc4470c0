// Package arm64 holds the AArch64 instruction-cache maintenance that makes
// freshly written code executable: the publish sequence in Go assembly and
// the CTR_EL0 (Cache Type Register) decoding it is driven by.
//
// # Publish sequence
//
// [FlushICache] performs, for [addr, addr+n) with the start rounded down to
// the line size:
//
//	DC CVAU per data line      (skipped when CTR_EL0.IDC = 1)
//	DSB ISH
//	IC IVAU per instruction line (skipped when CTR_EL0.DIC = 1)
//	DSB ISH                    (with the IC loop)
//	ISB
//
// CTR_EL0 is read once (at package initialisation) and cached; the line
// sizes used are its minimum line sizes (DminLine, IminLine), so every line
// of a mixed-size cache hierarchy is covered. The decoding ([DecodeCTR]) is
// plain Go without build tags and is tested on every host with CTR values
// captured from real cores.
//
// # Other cores
//
// DC CVAU / IC IVAU are broadcast to the inner-shareable domain and the DSB
// ISH waits for them, so after FlushICache returns no core's I-cache holds a
// stale line for the range. A core that may already have fetched (or
// speculatively prefetched) the old instructions into its pipeline still
// needs a context-synchronization event (an ISB, or any exception entry or
// return such as a system call) before it executes the new code. orcrt's
// native-call trampolines (package rt/native) execute an ISB before every
// call into JIT'd code and after every jit-dispatch return, which covers all
// code entered through orcrt; the arch package's SyncCores (membarrier
// PRIVATE_EXPEDITED_SYNC_CORE) covers threads of the JIT'd program that
// jump into newly published code on their own.
//
// # Testing
//
// QEMU user mode (qemu-aarch64) does not model caches: a missing or wrong
// flush still passes there. The test that exercises the real hazard is the
// rewrite-and-execute test in rt/native, which alternates "return 1" and
// "return 2" in the same slab block thousands of times; run it on real
// arm64 hardware:
//
//	go test -run 'TestRewriteSameBlock' -count=1 ./rt/native/
//
// Concurrency: all functions are safe for concurrent use.
package arm64
