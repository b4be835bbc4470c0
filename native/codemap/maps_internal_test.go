package codemap

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseMaps(t *testing.T) {
	maps := "00400000-00452000 r-xp 00000000 08:02 173521      /usr/bin/dbus-daemon\n" +
		"00651000-00652000 r--p 00051000 08:02 173521      /usr/bin/dbus-daemon\n" +
		"7f0000000000-7f0000001000 rwxp 00000000 00:00 0 \n" +
		"7f0000002000-7f0000003000 --xp 00000000 00:00 0\n" +
		"7f0000004000-7f0000005000 rw-p 00000000 00:00 0   [heap]\n" +
		"garbage line\n" +
		"-1000 r-xp\n" +
		"1000- r-xp\n" +
		"10000000000000000-10000000000000001 r-xp 0 0:0 0\n" + // 17 digits: refused
		"1000-2000 r-\n" +
		"ABC-DEF r-xp 0 0:0 0\n" + // upper case: not the kernel's format
		"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0  [vsyscall]"
	got := parseMaps([]byte(maps), nil)
	assert.Equal(t, []span{
		{0x400000, 0x452000},
		{0x7f0000000000, 0x7f0000001000},
		{0x7f0000002000, 0x7f0000003000},
		{0xffffffffff600000, 0xffffffffff601000},
	}, got)
	assert.Empty(t, parseMaps(nil, nil))
}

func TestSnapshotContains(t *testing.T) {
	s := &snapshot{spans: []span{{0x1000, 0x2000}, {0x3000, 0x3001}, {0x8000, 0x9000}}}
	for addr, want := range map[uintptr]bool{
		0: false, 0xfff: false, 0x1000: true, 0x1fff: true, 0x2000: false,
		0x3000: true, 0x3001: false, 0x7fff: false, 0x8000: true, 0x8fff: true, 0x9000: false, ^uintptr(0): false,
	} {
		assert.Equal(t, want, s.contains(addr), "%#x", addr)
	}
	assert.False(t, (&snapshot{}).contains(0x1000))
}
