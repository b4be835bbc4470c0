package arm64

import "fmt"

// CTR is a decoded CTR_EL0 (Cache Type Register, Arm ARM D23.2.41).
type CTR struct {
	Raw uint64

	// IminLine and DminLine are the smallest instruction and data cache
	// line sizes in bytes of all caches the core controls (4 << field).
	IminLine uintptr
	DminLine uintptr

	// L1Ip is the L1 instruction-cache indexing policy:
	// 0 VPIPT, 1 AIVIVT (reserved in v8), 2 VIPT, 3 PIPT.
	L1Ip uint8

	// ERG is the exclusives reservation granule and CWG the cache writeback
	// granule, in bytes; 0 means "not reported" (the architecture then says
	// to assume the maximum, 2 KiB).
	ERG uintptr
	CWG uintptr

	// IDC: data-cache clean to the point of unification is not required
	// for instruction/data coherence (the DC CVAU loop can be skipped).
	IDC bool
	// DIC: instruction-cache invalidation to the point of unification is
	// not required (the IC IVAU loop can be skipped).
	DIC bool
}

// Bit positions of CTR_EL0 fields.
const (
	ctrIminLineShift = 0  // [3:0]
	ctrL1IpShift     = 14 // [15:14]
	ctrDminLineShift = 16 // [19:16]
	ctrERGShift      = 20 // [23:20]
	ctrCWGShift      = 24 // [27:24]
	ctrIDCBit        = 28
	ctrDICBit        = 29
)

// DecodeCTR decodes a raw CTR_EL0 value.
func DecodeCTR(v uint64) CTR {
	granule := func(f uint64) uintptr {
		if f == 0 {
			return 0
		}
		return 4 << f
	}
	return CTR{
		Raw:      v,
		IminLine: 4 << (v >> ctrIminLineShift & 0xf),
		DminLine: 4 << (v >> ctrDminLineShift & 0xf),
		L1Ip:     uint8(v >> ctrL1IpShift & 0x3),
		ERG:      granule(v >> ctrERGShift & 0xf),
		CWG:      granule(v >> ctrCWGShift & 0xf),
		IDC:      v>>ctrIDCBit&1 != 0,
		DIC:      v>>ctrDICBit&1 != 0,
	}
}

// Operations selected by [CTR.Plan], passed to the assembly as a bit set.
const (
	OpCleanD     = 1 << 0 // run the DC CVAU loop
	OpInvalidate = 1 << 1 // run the IC IVAU loop
)

// Plan computes the publish sequence for [addr, addr+n): the data-line and
// instruction-line start addresses (addr rounded down to DminLine and
// IminLine), the exclusive end, and which loops are needed. n must be
// non-zero and addr+n must not overflow.
func (c CTR) Plan(addr, n uintptr) (dstart, istart, end uintptr, ops uintptr) {
	end = addr + n
	dstart = addr &^ (c.DminLine - 1)
	istart = addr &^ (c.IminLine - 1)
	if !c.IDC {
		ops |= OpCleanD
	}
	if !c.DIC {
		ops |= OpInvalidate
	}
	return dstart, istart, end, ops
}

// String formats the fields for diagnostics.
func (c CTR) String() string {
	return fmt.Sprintf("CTR_EL0=%#x DminLine=%d IminLine=%d L1Ip=%d IDC=%t DIC=%t",
		c.Raw, c.DminLine, c.IminLine, c.L1Ip, c.IDC, c.DIC)
}
