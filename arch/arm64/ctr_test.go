package arm64

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Real CTR_EL0 values. Sources: QEMU's CPU models (target/arm/cpu64.c),
// which copy the cores' TRMs; published captures for the others.
var realCTRs = []struct {
	name     string
	raw      uint64
	dmin     uintptr
	imin     uintptr
	l1ip     uint8
	idc, dic bool
}{
	{"Cortex-A53/A55 (VIPT)", 0x84448004, 64, 64, 2, false, false},
	{"Cortex-A57/A72 (Graviton1)", 0x8444c004, 64, 64, 3, false, false},
	{"Cortex-A76 (Raspberry Pi 5), Apple M3 guest", 0x9444c004, 64, 64, 3, true, false},
	{"Neoverse-N1 (Graviton2), Neoverse-V1, Snapdragon X", 0xb444c004, 64, 64, 3, true, true},
	{"A64FX (256-byte lines)", 0x86668006, 256, 256, 2, false, false},
	{"qemu -cpu max", 0x80038003, 32, 32, 2, false, false},
}

func TestDecodeCTRRealValues(t *testing.T) {
	for _, tc := range realCTRs {
		t.Run(tc.name, func(t *testing.T) {
			c := DecodeCTR(tc.raw)
			assert.Equal(t, tc.raw, c.Raw)
			assert.Equal(t, tc.dmin, c.DminLine, "DminLine")
			assert.Equal(t, tc.imin, c.IminLine, "IminLine")
			assert.Equal(t, tc.l1ip, c.L1Ip, "L1Ip")
			assert.Equal(t, tc.idc, c.IDC, "IDC")
			assert.Equal(t, tc.dic, c.DIC, "DIC")
		})
	}
}

func TestDecodeCTRGranules(t *testing.T) {
	c := DecodeCTR(0x8444c004)
	assert.Equal(t, uintptr(64), c.ERG)
	assert.Equal(t, uintptr(64), c.CWG)
	c = DecodeCTR(0x8000c004) // CWG/ERG not reported
	assert.Equal(t, uintptr(0), c.ERG)
	assert.Equal(t, uintptr(0), c.CWG)
	assert.Contains(t, DecodeCTR(0xb444c004).String(), "IDC=true DIC=true")
}

func TestPlan(t *testing.T) {
	tests := []struct {
		name                string
		raw                 uint64
		addr, n             uintptr
		dstart, istart, end uintptr
		ops                 uintptr
	}{
		{"aligned full", 0x8444c004, 0x10000, 0x1000, 0x10000, 0x10000, 0x11000, OpCleanD | OpInvalidate},
		{"unaligned start rounds down", 0x8444c004, 0x10023, 0x10, 0x10000, 0x10000, 0x10033, OpCleanD | OpInvalidate},
		{"IDC skips D clean", 0x9444c004, 0x10041, 1, 0x10040, 0x10040, 0x10042, OpInvalidate},
		{"IDC+DIC skips both", 0xb444c004, 0x10041, 1, 0x10040, 0x10040, 0x10042, 0},
		{"256-byte lines", 0x86668006, 0x101ff, 2, 0x10100, 0x10100, 0x10201, OpCleanD | OpInvalidate},
		{"different D and I lines", 0x80048003, 0x1003f, 1, 0x10000, 0x10020, 0x10040, OpCleanD | OpInvalidate},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, i, e, ops := DecodeCTR(tc.raw).Plan(tc.addr, tc.n)
			assert.Equal(t, tc.dstart, d, "dstart")
			assert.Equal(t, tc.istart, i, "istart")
			assert.Equal(t, tc.end, e, "end")
			assert.Equal(t, tc.ops, ops, "ops")
		})
	}
}
