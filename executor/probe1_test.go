//go:build cgo

package executor_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/sps"
)

// Addresses in stock-executor Probe 1 (the stock executor's run).
const (
	stockMemMgr = 0x55dc8a2b4c10 // SimpleExecutorMemoryManager_Instance
	stockDylib  = 0x55dc8a2b4ee0 // SimpleExecutorDylibManager_Instance
	stockBase   = 0x7f959366e000 // reserve(0x3000)
	stockHandle = 0x7f9584000e10 // the first open("") handle
	stockMB     = 0x7f9593670000 // reserve(0x1000) for the memory probes
)

// rewriter substitutes stock addresses with ours in captured payloads:
// as 8-byte little-endian values, and as "0x%x" text inside SPS error
// strings (re-encoded with the new length).
type rewriter struct{ pairs [][2]uint64 }

func (r *rewriter) add(stock, ours uint64) { r.pairs = append(r.pairs, [2]uint64{stock, ours}) }

func le(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func (r *rewriter) bytes(t testing.TB, hexs string) []byte {
	t.Helper()
	b, err := hex.DecodeString(hexs)
	require.NoError(t, err)
	for _, p := range r.pairs {
		b = bytes.ReplaceAll(b, le(p[0]), le(p[1]))
	}
	return b
}

// errorResult rewrites a captured SPSError/SPSExpected error payload: a
// leading byte, then an SPS string holding addresses as text.
func (r *rewriter) errorResult(t testing.TB, hexs string) []byte {
	t.Helper()
	b, err := hex.DecodeString(hexs)
	require.NoError(t, err)
	d := sps.NewDecoder(b[1:])
	msg := d.String()
	require.NoError(t, d.Err())
	for _, p := range r.pairs {
		msg = strings.ReplaceAll(msg, fmt.Sprintf("%#x", p[0]), fmt.Sprintf("%#x", p[1]))
	}
	return sps.AppendString([]byte{b[0]}, msg)
}

func TestProbe1(t *testing.T) {
	eachTarget(t, func(t *testing.T, s *session) {
		c := ctx(t)
		var rw rewriter
		rw.add(stockMemMgr, uint64(s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_Instance")))
		rw.add(stockDylib, uint64(s.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_Instance")))
		call := func(name string, req []byte) []byte {
			t.Helper()
			res, err := s.CallName(c, name, req)
			require.NoError(t, err, name)
			return res
		}
		check := func(what, name, req string, want []byte) []byte {
			t.Helper()
			got := call(name, rw.bytes(t, req))
			assert.Equal(t, hex.EncodeToString(want), hex.EncodeToString(got), what)
			return got
		}
		const (
			reserve = "__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper"
			initz   = "__llvm_orc_SimpleExecutorMemoryManager_initialize_wrapper"
			deinit  = "__llvm_orc_SimpleExecutorMemoryManager_deinitialize_wrapper"
			release = "__llvm_orc_SimpleExecutorMemoryManager_release_wrapper"
			open    = "__llvm_orc_SimpleExecutorDylibManager_open_wrapper"
			resolve = "__llvm_orc_SimpleExecutorDylibManager_resolve_wrapper"
		)

		check("reserve with truncated args: empty payload", reserve, "010203", nil)
		got := call(reserve, rw.bytes(t, "104c2b8adc5500000030000000000000"))
		require.Len(t, got, 9)
		require.Equal(t, byte(1), got[0])
		base := binary.LittleEndian.Uint64(got[1:])
		for _, k := range []uint64{0, 8, 0x1000} {
			rw.add(stockBase+k, base+k)
		}

		check("initialize, 0 segments, 0 actions", initz, "104c2b8adc55000000000000000000000000000000000000",
			rw.bytes(t, "001d0000000000000046696e616c697a6174696f6e207265717565737420697320656d707479"))
		check("initialize, 0 segments, 1 null action", initz, "104c2b8adc550000000000000000000001000000000000000000000000000000000000000000000000000000000000000000000000000000",
			rw.bytes(t, "003b0000000000000046696e616c697a6174696f6e20616374696f6e7320617474616368656420746f20656d7074792066696e616c697a6174696f6e2072657175657374"))
		check("initialize, content larger than size", initz, "104c2b8adc55000001000000000000000300e06693957f00000400000000000000080000000000000031323334353637380000000000000000",
			rw.errorResult(t, "0050000000000000005365676d656e7420307837663935393336366530303020636f6e74656e742073697a652028307838206279746573292065786365656473207365676d656e742073697a65202830783420627974657329"))
		check("initialize RW [base, base+0x1000) with 4 bytes", initz, "104c2b8adc55000001000000000000000300e06693957f000000100000000000000400000000000000414243440000000000000000",
			rw.bytes(t, "0100e06693957f0000"))
		check("initialize again: overlap", initz, "104c2b8adc55000001000000000000000300e06693957f000000100000000000000400000000000000414243440000000000000000",
			rw.errorResult(t, "007000000000000000496e20696e697469616c697a652c20726567696f6e203078376639353933363665303030202d2d203078376639353933363666303030206f7665726c6170732070726576696f757320726567696f6e203078376639353933363665303030202d2d203078376639353933363666303030"))
		check("read back", "__llvm_orc_bootstrap_mem_read_buffers_wrapper", "010000000000000000e06693957f000008e06693957f0000",
			rw.bytes(t, "010000000000000008000000000000004142434400000000"))
		check("deinitialize([base])", deinit, "104c2b8adc550000010000000000000000e06693957f0000", []byte{0})
		check("deinitialize([base]) again", deinit, "104c2b8adc550000010000000000000000e06693957f0000", []byte{0})
		check("deinitialize([base+0x1000])", deinit, "104c2b8adc550000010000000000000000f06693957f0000",
			rw.errorResult(t, "016200000000000000496e206465696e697469616c697a652c206164647265737320307837663935393336366630303020646f6573206e6f7420636f72726573706f6e6420746f20746865207374617274206f6620616e7920696e697469616c697a656420726567696f6e"))
		check("deinitialize([0x1234000])", deinit, "104c2b8adc55000001000000000000000040230100000000",
			rw.errorResult(t, "014c00000000000000496e206465696e697469616c697a652c206164647265737320307831323334303030206973206e6f742070617274206f6620616e7920726573657276656420616464726573732072616e6765"))
		check("release([0x1234000])", release, "104c2b8adc55000001000000000000000040230100000000",
			rw.errorResult(t, "013f00000000000000496e2072656c656173652c20307831323334303030206973206e6f742070617274206f6620616e7920726573657276656420616464726573732072616e6765"))
		check("release([base])", release, "104c2b8adc550000010000000000000000e06693957f0000", []byte{0})
		check("release([base]) twice", release, "104c2b8adc550000010000000000000000e06693957f0000",
			rw.errorResult(t, "014400000000000000496e2072656c656173652c203078376639353933363665303030206973206e6f742070617274206f6620616e7920726573657276656420616464726573732072616e6765"))
		check("release([])", release, "104c2b8adc5500000000000000000000", []byte{0})

		check("open nonexistent", open, "e04e2b8adc55000014000000000000002f6e6f6e6578697374656e742f6c6962782e736f0000000000000000",
			rw.bytes(t, "004f000000000000002f6e6f6e6578697374656e742f6c6962782e736f3a2063616e6e6f74206f70656e20736861726564206f626a6563742066696c653a204e6f20737563682066696c65206f72206469726563746f7279"))
		check("open('', 1)", open, "e04e2b8adc55000000000000000000000100000000000000",
			rw.bytes(t, "002a000000000000006f70656e3a206e6f6e2d7a65726f206d6f64652062697473206e6f742079657420737570706f72746564"))
		h1 := call(open, rw.bytes(t, "e04e2b8adc55000000000000000000000000000000000000"))
		h2 := call(open, rw.bytes(t, "e04e2b8adc55000000000000000000000000000000000000"))
		require.Len(t, h1, 9)
		require.Len(t, h2, 9)
		assert.Equal(t, byte(1), h1[0])
		assert.NotEqual(t, h1, h2, "a different handle each time")
		rw.add(stockHandle, binary.LittleEndian.Uint64(h1[1:]))

		// resolve: [Some{printf}, None, Some{0}, None]; printf's address is
		// the executor's own.
		got = call(resolve, rw.bytes(t, "100e0084957f0000040000000000000006000000000000007072696e7466010f000000000000006e6f5f737563685f73796d5f78797a010f000000000000006e6f5f737563685f73796d5f78797a00000000000000000000"))
		require.Len(t, got, 33)
		printf := binary.LittleEndian.Uint64(got[10:])
		assert.NotZero(t, printf)
		assert.Equal(t, "01040000000000000001b005c791957f0000100000010000000000000000100000",
			hex.EncodeToString(substBack(got, printf, 0x7f9591c705b0)))
		check("resolve(h, [])", resolve, "100e0084957f00000000000000000000", rw.bytes(t, "010000000000000000"))

		// abs and getpid for the run probes, resolved the same way.
		got = call(resolve, sps.DylibManagerResolve.AppendArgs(nil, sps.Addr(binary.LittleEndian.Uint64(h1[1:])),
			[]sps.LookupElement{{Name: []byte("abs"), Required: true}, {Name: []byte("getpid"), Required: true}}))
		res, err := sps.Unmarshal(sps.DylibManagerResolve.Ret, got)
		require.NoError(t, err)
		require.NoError(t, res.Err)
		require.Len(t, res.Value, 2)
		rw.add(0x7f9591c5b0b0, uint64(res.Value[0].Value.Addr))
		rw.add(0x7f9591cf34e0, uint64(res.Value[1].Value.Addr))
		check("run_as_int_function(abs, -77)", "__llvm_orc_bootstrap_run_as_int_function_wrapper", "b0b0c591957f0000b3ffffff", rw.bytes(t, "4d000000"))
		check("run_as_void_function(getpid)", "__llvm_orc_bootstrap_run_as_void_function_wrapper", "e034cf91957f0000",
			binary.LittleEndian.AppendUint32(nil, uint32(s.pid)))
		check("run_as_main(abs, [p x y])", "__llvm_orc_bootstrap_run_as_main_wrapper", "b0b0c591957f00000300000000000000010000000000000070010000000000000078010000000000000079",
			rw.bytes(t, "0300000000000000"))

		got = call(reserve, rw.bytes(t, "104c2b8adc5500000010000000000000"))
		require.Len(t, got, 9)
		mb := binary.LittleEndian.Uint64(got[1:])
		for k := uint64(0); k < 0x40; k++ {
			rw.add(stockMB+k, mb+k)
		}
		steps := []struct{ what, name, req, resp string }{
			{"write_buffers hello", "__llvm_orc_bootstrap_mem_write_buffers_wrapper", "010000000000000000006793957f0000050000000000000068656c6c6f", ""},
			{"read_buffers", "__llvm_orc_bootstrap_mem_read_buffers_wrapper", "010000000000000000006793957f000005006793957f0000", "0100000000000000050000000000000068656c6c6f"},
			{"read_strings", "__llvm_orc_bootstrap_mem_read_strings_wrapper", "010000000000000000006793957f0000", "0100000000000000050000000000000068656c6c6f"},
			{"write_uint32s", "__llvm_orc_bootstrap_mem_write_uint32s_wrapper", "010000000000000000006793957f0000efbeadde", ""},
			{"read_uint64s", "__llvm_orc_bootstrap_mem_read_uint64s_wrapper", "010000000000000000006793957f0000", "0100000000000000efbeadde6f000000"},
			{"read_uint8s", "__llvm_orc_bootstrap_mem_read_uint8s_wrapper", "020000000000000000006793957f000001006793957f0000", "0200000000000000efbe"},
			{"write_pointers", "__llvm_orc_bootstrap_mem_write_pointers_wrapper", "010000000000000008006793957f00008877665544332211", ""},
			{"read_pointers", "__llvm_orc_bootstrap_mem_read_pointers_wrapper", "010000000000000008006793957f0000", "01000000000000008877665544332211"},
			{"write_uint16s", "__llvm_orc_bootstrap_mem_write_uint16s_wrapper", "010000000000000010006793957f0000cdab", ""},
			{"read_uint16s", "__llvm_orc_bootstrap_mem_read_uint16s_wrapper", "010000000000000010006793957f0000", "0100000000000000cdab"},
			{"write_uint8s", "__llvm_orc_bootstrap_mem_write_uint8s_wrapper", "010000000000000014006793957f00005a", ""},
			{"write_uint64s", "__llvm_orc_bootstrap_mem_write_uint64s_wrapper", "010000000000000018006793957f00000807060504030201", ""},
			{"read_uint32s", "__llvm_orc_bootstrap_mem_read_uint32s_wrapper", "020000000000000018006793957f00001c006793957f0000", "02000000000000000807060504030201"},
			{"read_buffers([])", "__llvm_orc_bootstrap_mem_read_buffers_wrapper", "0000000000000000", "0000000000000000"},
			{"write_buffers([]) + junk", "__llvm_orc_bootstrap_mem_write_buffers_wrapper", "00000000000000007878", ""},
		}
		for _, st := range steps {
			check(st.what, st.name, st.req, rw.bytes(t, st.resp))
		}

		// A Result for a sequence number the executor never used is fatal.
		require.NoError(t, s.SendResult(999, nil))
		<-s.Done()
		out := s.end(t)
		if s.kind == "process" {
			assert.Equal(t, 1, out.status.Code)
			assert.Equal(t, fatalText(orcrtBin, "No call for sequence number 999"), out.stderr)
		} else {
			assert.EqualError(t, out.err, "No call for sequence number 999")
		}
	})
}

// substBack writes the stock value back over ours in b (for comparing a
// whole captured response whose address we only learn from it).
func substBack(b []byte, ours, stock uint64) []byte {
	return bytes.ReplaceAll(append([]byte(nil), b...), le(ours), le(stock))
}

// TestProtocolSection5Examples replays the request/response examples of
// docs/protocol.md §5 that Probe 1 does not cover (addresses substituted).
func TestProtocolSection5Examples(t *testing.T) {
	eachTarget(t, func(t *testing.T, s *session) {
		c := ctx(t)
		var rw rewriter
		rw.add(0x55dd1398bc10, uint64(s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_Instance")))
		rw.add(0x55dd1398bee0, uint64(s.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_Instance")))
		// §5.1 reserve(0x1000) -> 01 + base.
		got, err := s.CallName(c, "__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper", rw.bytes(t, "10bc9813dd5500000010000000000000"))
		require.NoError(t, err)
		require.Len(t, got, 9)
		assert.Equal(t, byte(1), got[0])
		assert.Zero(t, binary.LittleEndian.Uint64(got[1:])%s.Setup().PageSize, "page aligned")
		// §5.2 open("", 0) -> 01 + handle.
		got, err = s.CallName(c, "__llvm_orc_SimpleExecutorDylibManager_open_wrapper", rw.bytes(t, "e0be9813dd55000000000000000000000000000000000000"))
		require.NoError(t, err)
		require.Len(t, got, 9)
		rw.add(0x7f2850000b70, binary.LittleEndian.Uint64(got[1:]))
		// §5.2 resolve(h, [printf, Required=false]) -> 01 | 1 | Some{printf, 0x10, 0}.
		got, err = s.CallName(c, "__llvm_orc_SimpleExecutorDylibManager_resolve_wrapper", rw.bytes(t, "700b0050287f0000010000000000000006000000000000007072696e746600"))
		require.NoError(t, err)
		require.Len(t, got, 20)
		printf := binary.LittleEndian.Uint64(got[10:])
		assert.NotZero(t, printf)
		assert.Equal(t, "01010000000000000001b005875f287f00001000", hex.EncodeToString(substBack(got, printf, 0x7f285f8705b0)))
	})
}
