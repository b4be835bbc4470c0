//go:build cgo

package lookup

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orcgo/orcrt/sps"
)

// The shapes the controller route is learnt from, as captured from
// llvm-jitlink 22 and clang-repl 22 (executor/internal/lookup/route.go), and near
// misses, which must not match.
func TestLookupRouteShapes(t *testing.T) {
	str := sps.AppendString
	run := sps.AppendCount(str(str(nil, "main"), "main"), 0) // 04..6d61696e 04..6d61696e 00..
	jd, ep, ok := runProgramArgs(run)
	assert.True(t, ok)
	assert.Equal(t, "main", string(jd))
	assert.Equal(t, "main", string(ep))
	withArgv := str(str(sps.AppendCount(str(str(nil, "main"), "go"), 2), "a"), "")
	_, ep, ok = runProgramArgs(withArgv)
	assert.True(t, ok)
	assert.Equal(t, "go", string(ep))
	for name, b := range map[string][]byte{
		"trailing byte":  append(append([]byte(nil), run...), 0),
		"short argv":     run[:len(run)-1],
		"empty entry":    sps.AppendCount(str(str(nil, "main"), ""), 0),
		"NUL in name":    sps.AppendCount(str(str(nil, "main"), "ma\x00n"), 0),
		"argv count big": sps.AppendU64(str(str(nil, "main"), "main"), 1),
	} {
		_, _, ok := runProgramArgs(b)
		assert.False(t, ok, name)
	}

	open := sps.AppendU32(str(nil, "main"), 1) // clang-repl's dlopen: ("main", 1)
	name, ok := dlopenArgs(open)
	assert.True(t, ok)
	assert.Equal(t, "main", string(name))
	_, ok = dlopenArgs(sps.AppendAddr(nil, 0x7f0000001000)) // dlupdate/dlclose: (handle)
	assert.False(t, ok)
	_, ok = dlopenArgs(run)
	assert.False(t, ok)

	look := str(sps.AppendAddr(nil, 0x7f5094024000), "main")
	h, name, ok := lookupArgs(look)
	assert.True(t, ok)
	assert.Equal(t, sps.Addr(0x7f5094024000), h)
	assert.Equal(t, "main", string(name))
	for what, b := range map[string][]byte{
		"zero handle": str(sps.AppendAddr(nil, 0), "main"),
		"handle only": sps.AppendAddr(nil, 0x7f5094024000), // push-initializers: (header)
		"trailing":    append(append([]byte(nil), look...), 1),
		"run shape":   run,
	} {
		_, _, ok := lookupArgs(b)
		assert.False(t, ok, what)
	}
}

func TestDecodeExpectedAddr(t *testing.T) {
	a, msg, err := decodeExpectedAddr([]byte{1, 0x10, 0x60, 0x02, 0x94, 0x50, 0x7f, 0, 0})
	assert.NoError(t, err)
	assert.Empty(t, msg)
	assert.Equal(t, sps.Addr(0x7f5094026010), a)
	_, msg, err = decodeExpectedAddr(sps.AppendString([]byte{0}, "Symbols not found: [ x ]"))
	assert.NoError(t, err)
	assert.Equal(t, "Symbols not found: [ x ]", msg)
	for what, b := range map[string][]byte{
		"address 0":  sps.AppendAddr([]byte{1}, 0),
		"empty":      nil,
		"bad tag":    sps.AppendAddr([]byte{2}, 1),
		"long value": append(sps.AppendAddr([]byte{1}, 1), 0),
		"short err":  {0, 5, 0, 0, 0, 0, 0, 0, 0, 'a'},
		"long":       make([]byte, 40),
	} {
		_, _, err := decodeExpectedAddr(b)
		assert.Error(t, err, what)
	}
}
