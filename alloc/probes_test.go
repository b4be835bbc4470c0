//go:build cgo && (amd64 || arm64)

package alloc

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/sps"
)

// Probes 1 and 3 of the stock-executor probes, reproduced byte for byte
// through the wrapper functions: the stock executor's request payloads are
// sent with its instance and slab addresses replaced by ours, and our
// results must equal its result payloads after the same replacement.

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// substBin replaces every little-endian 8-byte occurrence of each old
// address.
func substBin(b []byte, sub map[uint64]uint64) []byte {
	out := bytes.Clone(b)
	for old, nw := range sub {
		o, n := le64(old), le64(nw)
		out = bytes.ReplaceAll(out, o, n)
	}
	return out
}

// substResult rewrites a stock result payload for our addresses: an error
// payload (a tag byte and one SPSString filling the rest) has the
// addresses in its text replaced and is re-encoded; anything else is
// replaced in binary.
func substResult(b []byte, sub map[uint64]uint64) []byte {
	if len(b) >= 9 && b[0] <= 1 && binary.LittleEndian.Uint64(b[1:]) == uint64(len(b)-9) && len(b) > 9 {
		msg := string(b[9:])
		for old, nw := range sub {
			msg = strings.ReplaceAll(msg, fmt.Sprintf("%#x", old), fmt.Sprintf("%#x", nw))
		}
		return sps.AppendString([]byte{b[0]}, msg)
	}
	return substBin(b, sub)
}

func resultHex(r rt.WrapperResult) string {
	if msg, ok := r.OutOfBandError(); ok {
		return "OOB(" + msg + ")"
	}
	return hex.EncodeToString(r.Bytes())
}

func TestProbe1MemoryManager(t *testing.T) {
	e := newEnv(t, Config{})
	const probeInst, probeBase = 0x55dc8a2b4c10, 0x7f959366e000

	// reserve with truncated args: out-of-band error (an EMPTY Result
	// payload on the LLVM 22 wire).
	r := e.call(MemoryManagerReserveName, unhex(t, "010203"))
	msg, oob := r.OutOfBandError()
	require.True(t, oob)
	assert.Equal(t, msgDeserializeArgs, msg)
	assert.Zero(t, r.Size())

	sub := map[uint64]uint64{probeInst: uint64(e.mm.InstanceAddr())}
	r = e.call(MemoryManagerReserveName, substBin(unhex(t, "104c2b8adc5500000030000000000000"), sub))
	require.Equal(t, 9, r.Size())
	require.Equal(t, byte(1), r.Bytes()[0])
	base := binary.LittleEndian.Uint64(r.Bytes()[1:])
	sub[probeBase] = base
	sub[probeBase+0x1000] = base + 0x1000

	steps := []struct {
		name, fn, req, resp string
	}{
		{"initialize with 0 segments and 0 actions", MemoryManagerInitializeName,
			"104c2b8adc55000000000000000000000000000000000000",
			"001d0000000000000046696e616c697a6174696f6e207265717565737420697320656d707479"},
		{"initialize with 0 segments and 1 (null) action", MemoryManagerInitializeName,
			"104c2b8adc550000000000000000000001000000000000000000000000000000000000000000000000000000000000000000000000000000",
			"003b0000000000000046696e616c697a6174696f6e20616374696f6e7320617474616368656420746f20656d7074792066696e616c697a6174696f6e2072657175657374"},
		{"segment content larger than Size", MemoryManagerInitializeName,
			"104c2b8adc55000001000000000000000300e06693957f00000400000000000000080000000000000031323334353637380000000000000000",
			"0050000000000000005365676d656e7420307837663935393336366530303020636f6e74656e742073697a652028307838206279746573292065786365656473207365676d656e742073697a65202830783420627974657329"},
		{"one RW segment with 4 content bytes", MemoryManagerInitializeName,
			"104c2b8adc55000001000000000000000300e06693957f000000100000000000000400000000000000414243440000000000000000",
			"0100e06693957f0000"},
		{"initialize again over the same range", MemoryManagerInitializeName,
			"104c2b8adc55000001000000000000000300e06693957f000000100000000000000400000000000000414243440000000000000000",
			"007000000000000000496e20696e697469616c697a652c20726567696f6e203078376639353933363665303030202d2d203078376639353933363666303030206f7665726c6170732070726576696f757320726567696f6e203078376639353933363665303030202d2d203078376639353933363666303030"},
		{"deinitialize([base])", MemoryManagerDeinitializeName,
			"104c2b8adc550000010000000000000000e06693957f0000", "00"},
		{"deinitialize([base]) again", MemoryManagerDeinitializeName,
			"104c2b8adc550000010000000000000000e06693957f0000", "00"},
		{"deinitialize([base+0x1000])", MemoryManagerDeinitializeName,
			"104c2b8adc550000010000000000000000f06693957f0000",
			"016200000000000000496e206465696e697469616c697a652c206164647265737320307837663935393336366630303020646f6573206e6f7420636f72726573706f6e6420746f20746865207374617274206f6620616e7920696e697469616c697a656420726567696f6e"},
		{"deinitialize([0x1234000])", MemoryManagerDeinitializeName,
			"104c2b8adc55000001000000000000000040230100000000",
			"014c00000000000000496e206465696e697469616c697a652c206164647265737320307831323334303030206973206e6f742070617274206f6620616e7920726573657276656420616464726573732072616e6765"},
		{"release([0x1234000])", MemoryManagerReleaseName,
			"104c2b8adc55000001000000000000000040230100000000",
			"013f00000000000000496e2072656c656173652c20307831323334303030206973206e6f742070617274206f6620616e7920726573657276656420616464726573732072616e6765"},
		{"release([base])", MemoryManagerReleaseName,
			"104c2b8adc550000010000000000000000e06693957f0000", "00"},
		{"release([base]) twice", MemoryManagerReleaseName,
			"104c2b8adc550000010000000000000000e06693957f0000",
			"014400000000000000496e2072656c656173652c203078376639353933363665303030206973206e6f742070617274206f6620616e7920726573657276656420616464726573732072616e6765"},
		{"release([])", MemoryManagerReleaseName,
			"104c2b8adc5500000000000000000000", "00"},
	}
	for _, st := range steps {
		got := e.call(st.fn, substBin(unhex(t, st.req), sub))
		want := substResult(unhex(t, st.resp), sub)
		if !assert.Equal(t, hex.EncodeToString(want), resultHex(got), st.name) {
			t.Logf("%s: got %q", st.name, got.Bytes())
		}
		if st.name == "one RW segment with 4 content bytes" {
			// The stock's read-back (mem_read_buffers) of [base, base+8).
			assert.Equal(t, "4142434400000000", hex.EncodeToString(mem(sps.Addr(base), 8)))
		}
	}
}

func TestProbe3ActionOrdering(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 64)
	inst := e.mm.InstanceAddr()
	init := func(fr sps.FinalizeRequest) rt.WrapperResult {
		return e.call(MemoryManagerInitializeName, sps.MemoryManagerInitialize.AppendArgs(nil, inst, fr))
	}
	r := e.call(MemoryManagerReserveName, sps.MemoryManagerReserve.AppendArgs(nil, inst, 0x4000))
	require.Equal(t, byte(1), r.Bytes()[0])
	slabBase := sps.Addr(binary.LittleEndian.Uint64(r.Bytes()[1:]))

	// initialize(seg R [slab,+0x1000), actions [F:A0/D:D0, F:A1/D:-, F:A2/D:D2])
	r = init(sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{seg(sps.Read, slabBase, 0x1000, nil)},
		Actions: []sps.ActionPair{
			pair(c.rec(l, 0xa0), c.rec(l, 0xd0)),
			pair(c.rec(l, 0xa1), none),
			pair(c.rec(l, 0xa2), c.rec(l, 0xd2)),
		},
	})
	assert.Equal(t, hex.EncodeToString(okAddr(slabBase)), resultHex(r))
	assert.Equal(t, []uint64{0xa0, 0xa1, 0xa2}, l.entries(), "finalize actions ran in order")

	r = e.call(MemoryManagerDeinitializeName, sps.MemoryManagerDeinitialize.AppendArgs(nil, inst, []sps.Addr{slabBase}))
	assert.Equal(t, "00", resultHex(r))
	assert.Equal(t, []uint64{0xa0, 0xa1, 0xa2, 0xd2, 0xd0}, l.entries(), "dealloc actions ran in reverse, absent D1 skipped")

	// initialize(seg R [slab+0x1000,+0x1000), [F:B0/D:E0, F:noop/D:E1, F:BAD(OOB)/D:E2, F:B3/D:E3])
	second := slabBase + 0x1000
	r = init(sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{seg(sps.Read, second, 0x1000, []byte("would be read-only"))},
		Actions: []sps.ActionPair{
			pair(c.rec(l, 0xb0), c.rec(l, 0xe0)),
			pair(c.nop(), c.rec(l, 0xe1)),
			pair(c.oob(msgDeserializeArgs), c.rec(l, 0xe2)),
			pair(c.rec(l, 0xb3), c.rec(l, 0xe3)),
		},
	})
	assert.Equal(t, hex.EncodeToString(errPayload(0, msgDeserializeArgs)), resultHex(r))
	assert.Equal(t, []uint64{0xa0, 0xa1, 0xa2, 0xd2, 0xd0, 0xb0, 0xe1, 0xe0}, l.entries(),
		"B0 ran; E1 then E0 ran as cleanup; E2, B3 and E3 did not run")

	// The failed R segment was reset to read-write: writing into it works.
	assertProt(t, second, "rw-")
	copy(mem(second, 8), "written!")
	assert.Equal(t, "written!", string(mem(second, 8)))

	// A failed initialize leaves no region record: the range initializes again.
	r = init(sps.FinalizeRequest{Segments: []sps.SegFinalizeRequest{seg(sps.Read, second, 0x1000, nil)}})
	assert.Equal(t, hex.EncodeToString(okAddr(second)), resultHex(r))

	l.reset()
	r = init(sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{seg(sps.Read, slabBase+0x2000, 0x1000, nil)},
		Actions:  []sps.ActionPair{pair(none, c.rec(l, 0xf0)), pair(none, c.rec(l, 0xf1))},
	})
	require.Equal(t, byte(1), r.Bytes()[0])
	r = init(sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{seg(sps.Read, slabBase+0x3000, 0x1000, nil)},
		Actions:  []sps.ActionPair{pair(none, c.rec(l, 0xf2))},
	})
	require.Equal(t, byte(1), r.Bytes()[0])
	r = e.call(MemoryManagerReleaseName, sps.MemoryManagerRelease.AppendArgs(nil, inst, []sps.Addr{slabBase}))
	assert.Equal(t, "00", resultHex(r))
	assert.Equal(t, []uint64{0xf2, 0xf1, 0xf0}, l.entries(),
		"release collects the regions' deallocs in ascending address order and runs them in reverse")
}
