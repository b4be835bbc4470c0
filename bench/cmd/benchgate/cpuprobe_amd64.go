//go:build cgo

package main

/*
#include <cpuid.h>

static void cpuid(unsigned leaf, unsigned sub, unsigned r[4]) {
	__cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}
*/
import "C"

import (
	"encoding/binary"
	"strings"
)

// cpuid executes CPUID, through C's <cpuid.h> (arch/amd64 has its own,
// for the library's cache-line probe, unexported).
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32) {
	var r [4]C.unsigned
	C.cpuid(C.unsigned(leaf), C.unsigned(sub), &r[0])
	return uint32(r[0]), uint32(r[1]), uint32(r[2]), uint32(r[3])
}

// cpuFeatures describes the CPU this process sees (under valgrind: the
// model valgrind presents): its brand string and, of the features the
// Go runtime's memmove and memclr or glibc's memcpy choose a path by,
// those it has.
func cpuFeatures() string {
	var brand []byte
	if max, _, _, _ := cpuid(0x80000000, 0); max >= 0x80000004 {
		for leaf := uint32(0x80000002); leaf <= 0x80000004; leaf++ {
			a, b, c, d := cpuid(leaf, 0)
			for _, r := range []uint32{a, b, c, d} {
				brand = binary.LittleEndian.AppendUint32(brand, r)
			}
		}
	}
	_, _, ecx1, _ := cpuid(1, 0)
	_, ebx7, _, edx7 := cpuid(7, 0)
	bit := func(r uint32, n uint) bool { return r&(1<<n) != 0 }
	feats := []struct {
		name string
		on   bool
	}{
		{"sse41", bit(ecx1, 19)}, {"sse42", bit(ecx1, 20)}, {"popcnt", bit(ecx1, 23)},
		{"avx", bit(ecx1, 28)}, {"avx2", bit(ebx7, 5)}, {"bmi1", bit(ebx7, 3)}, {"bmi2", bit(ebx7, 8)},
		{"erms", bit(ebx7, 9)}, {"avx512f", bit(ebx7, 16)}, {"avx512bw", bit(ebx7, 30)},
		{"avx512vl", bit(ebx7, 31)}, {"fsrm", bit(edx7, 4)},
	}
	var s strings.Builder
	s.WriteString(strings.Join(strings.Fields(strings.TrimRight(string(brand), "\x00")), " "))
	s.WriteString(":")
	for _, f := range feats {
		if f.on {
			s.WriteString(" " + f.name)
		}
	}
	return s.String()
}
