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
// CI runs every package's tests for arm64 under QEMU user mode
// (qemu-aarch64 on an x86-64 host; `make arm64`, see .ci/arm64.mk): the
// assembly above, the CTR_EL0 read, the page-protection changes and the
// native calls into hand-assembled AArch64 code (write, protect, flush,
// call, rewrite the same block, call again) all execute there, with
// QEMU's default CPU (CTR_EL0 = 0x80038003: 32-byte lines, both loops
// run) and again with cortex-a53 (64-byte lines) and a64fx (256-byte
// lines). What emulation cannot show:
//
//   - QEMU does not model caches. DC CVAU and IC IVAU are no-ops to it,
//     and it drops its translations of a page whenever that page is
//     written (it write-protects pages it has translated code from), so
//     stale instructions never run under it: a missing or wrong flush
//     (wrong stride, range or barrier, a missing ISB) passes there. Only
//     real hardware shows I-cache incoherence.
//   - No QEMU 7.2 CPU model sets CTR_EL0.IDC or .DIC, so the branches that
//     skip the loops run only on cores that set them (Neoverse N1/V1,
//     Graviton2+, Cortex-A76 for IDC); [CTR.Plan]'s choice is tested on
//     every host with captured values.
//   - On an x86-64 host QEMU's guest memory accesses keep x86's stronger
//     (TSO) ordering, so a missing acquire/release barrier in lock-free
//     code does not show; and the race detector does not run under QEMU
//     (ThreadSanitizer refuses its 39-bit guest address space).
//   - The guest page size is the host's 4 KiB; arm64 kernels with 16 or
//     64 KiB pages are real-hardware only.
//
// On real arm64 hardware run, at least:
//
//	go test -run 'TestRewriteSameBlock|TestPackedBlocks' -count=1 ./rt/native/
//	go test -count=1 ./arch/... ./slab/ ./alloc/ ./rt/native/ ./service/entry/
//	go test -race -count=1 ./...
//
// TestRewriteSameBlock alternates "return 1" and "return 2" in the same
// slab block thousands of times and calls it after every rewrite, then
// reuses freed pages for the other function: it is the test that catches
// a broken publish sequence. Repeat it on a machine with IDC/DIC set and
// on one without (e.g. Graviton2 and a Cortex-A72 board), and on a 16 KiB
// or 64 KiB page kernel if one is at hand.
//
// Concurrency: all functions are safe for concurrent use.
package arm64
