package spsfuzz

import (
	"fmt"
	"strings"
)

// Hand-made seed messages, for the shapes no golden vector fits and for
// paths the golden vectors do not reach (the set-based duplicate checks
// of long maps, a segment list whose counted minimum fits but whose
// contents do not). They are written with plain little-endian helpers,
// not with package sps, so that building them exercises nothing there.

func cat(bs ...[]byte) []byte {
	var b []byte
	for _, x := range bs {
		b = append(b, x...)
	}
	return b
}

func le(n int, v uint64) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	return b
}

func u16(v uint16) []byte  { return le(2, uint64(v)) }
func u32(v uint32) []byte  { return le(4, uint64(v)) }
func u64(v uint64) []byte  { return le(8, v) }
func str(s string) []byte  { return cat(u64(uint64(len(s))), []byte(s)) }
func raw(b ...byte) []byte { return b }

// Addresses as they appear in llvm-jitlink 22 sessions.
const (
	seedA1   = 0x7f2861569000
	seedA2   = 0x7f286156a000
	seedInst = 0x55dd1398bc10
	seedFn   = 0x55dce7a9ac60
	allOnes  = ^uint64(0)
)

var longKey = strings.Repeat("k", 70) // past keyString's 64-byte limit

// prefixes returns b cut at each of the offsets: truncated messages.
func prefixes(b []byte, cuts ...int) [][]byte {
	out := make([][]byte, len(cuts))
	for i, c := range cuts {
		out[i] = b[:c]
	}
	return out
}

// setupMsg is a Setup payload (LLVM 22 layout, or without the bootstrap
// map for LLVM 14-16) with the given bootstrap symbol names.
func setupMsg(noMap bool, syms ...string) []byte {
	b := cat(str("x86_64-pc-linux-gnu"), u64(4096))
	if !noMap {
		b = cat(b, u64(1), str("darwin-use-ehframes-only"), str("\x01"))
	}
	b = cat(b, u64(uint64(len(syms))))
	for i, s := range syms {
		b = cat(b, str(s), u64(seedA1+uint64(16*i)))
	}
	return b
}

// manyNames is 17 distinct names and then the fourth again: a duplicate
// found by the set that the duplicate checks switch to past 16 entries.
func manyNames() []string {
	var n []string
	for i := range 17 {
		n = append(n, fmt.Sprintf("__orc_sym_%02d", i))
	}
	return append(n, n[3])
}

// stringMap encodes an SPSMap<SPSString, uint64_t> of the given keys.
func stringMap(keys ...string) []byte {
	b := u64(uint64(len(keys)))
	for i, k := range keys {
		b = cat(b, str(k), u64(uint64(i)))
	}
	return b
}

// u32Map is an SPSMap<uint32_t, bool> of the given keys.
func u32Map(keys ...uint32) []byte {
	b := u64(uint64(len(keys)))
	for i, k := range keys {
		b = cat(b, u32(k), raw(byte(i&1)))
	}
	return b
}

// addrMap is an SPSMap<SPSExecutorAddr, SPSString> of the given keys.
func addrMap(keys ...uint64) []byte {
	b := u64(uint64(len(keys)))
	for i, k := range keys {
		b = cat(b, u64(k), str(fmt.Sprint(i)))
	}
	return b
}

// segMsg is an SPSSegFinalizeRequest.
func segMsg(group byte, addr, size uint64, content string) []byte {
	return cat(raw(group), u64(addr), u64(size), str(content))
}

// sharedSegMsg is an SPSSharedMemorySegFinalizeRequest.
func sharedSegMsg(group byte, addr, size uint64) []byte {
	return cat(raw(group), u64(addr), u64(size))
}

// callMsg is an SPSWrapperFunctionCall.
func callMsg(fn uint64, args string) []byte { return cat(u64(fn), str(args)) }

// finalizeMsg is an SPSFinalizeRequest with one segment and one action.
func finalizeMsg() []byte {
	return cat(u64(1), segMsg(5, seedA2, 0x1000, "\x55\x48\x89\xe5\x31\xc0\x5d\xc3"),
		u64(1), callMsg(seedFn, "range"), callMsg(0, ""))
}

// sharedMsg is an SPSSharedMemoryFinalizeRequest with two segments.
func sharedMsg() []byte {
	return cat(u64(2), sharedSegMsg(1, seedA1, 0x1000), sharedSegMsg(0xf5, allOnes, allOnes), u64(0))
}

var (
	// segFallback: two segments counted (50 bytes for 25-byte minimums),
	// the first with a 20-byte content, so the second's head is short.
	segFallback = cat(u64(2), segMsg(1, seedA1, 0x1000, strings.Repeat("x", 20)), raw(3, 0, 0, 0, 0))

	// Records of seq/scalar-records: bool, i8, i16; i32, i64, size;
	// empty, SPSError, SPSExpected<uint32_t>.
	scalarsOK  = cat(raw(1, 0x80), u16(0x8000), u32(0xffffffff), u64(1<<63), u64(4096), raw(0), raw(1), u32(42))
	scalarsErr = cat(raw(2, 0x7f), u16(1), u32(1), u64(1), u64(0), raw(1), str("boom"), raw(0), str("e"))

	// The fields of seq/orc-records before the span: strings, JIT symbol
	// flags, a symbol definition; a call, an action pair, an alloc group;
	// a segment and a shared-memory segment.
	orcFields = cat(u64(1), str("a"), raw(0x10, 0), u64(seedA1), raw(0x30, 1),
		callMsg(seedFn, "x"), callMsg(seedFn, "r"), callMsg(0, ""), raw(5),
		segMsg(5, seedA1, 0x1000, "\xc3"), sharedSegMsg(3, seedA1, 0x1000))

	// The fields of seq/request-records before the maps: the two
	// finalize requests and the two Setup layouts.
	requestFields = cat(finalizeMsg(), sharedMsg(), setupMsg(false, "a", "b"), setupMsg(true, "c"))

	// prims: one of each fixed-size scalar (see the prims shape); its bool
	// byte is 7, which LLVM's decoder has no defined reading of (see
	// Undefined): primsCanon has a bool LLVM reads.
	prims = cat(raw(0xff, 0x80), u16(0xbeef), u16(0x8000), u32(0xdeadbeef), u32(0x80000000),
		u64(allOnes), u64(1<<63), raw(7), u64(seedA1))
	primsCanon = cat(prims[:30], raw(1), prims[31:])
)
