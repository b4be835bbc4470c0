//go:build linux

package memaccess_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/svctest"
	"github.com/orcgo/orcrt/service/memaccess"
	"github.com/orcgo/orcrt/sps"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// mapping returns n bytes of fresh, zeroed, non-Go memory (mmap), aligned
// to align, unmapped at cleanup.
func mapping(t testing.TB, n, align int) uintptr {
	t.Helper()
	b, err := syscall.Mmap(-1, 0, n+align, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	require.NoError(t, err)
	t.Cleanup(func() { _ = syscall.Munmap(b) })
	base := uintptr(unsafe.Pointer(&b[0]))
	return (base + uintptr(align) - 1) &^ (uintptr(align) - 1)
}

func mem(a uintptr, n int) []byte {
	return unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&a))), n)
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

func TestAllThirteenNames(t *testing.T) {
	h := svctest.New(t, memaccess.Install)
	assert.Equal(t, 13, h.Syms.Len())
	seen := map[sps.Addr]string{}
	for name, a := range h.Syms.All() {
		assert.True(t, strings.HasPrefix(name, "__llvm_orc_bootstrap_mem_"), name)
		assert.NotZero(t, a)
		assert.NotContains(t, seen, a, "address of %s reused", name)
		seen[a] = name
	}
}

// TestProbe1 replays the memory-access requests of stock-executor
// Probe 1 against a 64 KiB-aligned mapping that stands in for the stock
// run's reserved block mb = 0x7f9593670000, and compares response bytes.
func TestProbe1(t *testing.T) {
	h := svctest.New(t, memaccess.Install)
	mb := mapping(t, 1<<16, 1<<16)
	var ours [8]byte
	binary.LittleEndian.PutUint64(ours[:], uint64(mb))
	rebase := func(s string) []byte {
		// Bytes 2..7 of every mb+k (k < 0x100) in the captured payload.
		return unhex(t, strings.ReplaceAll(s, "6793957f0000", hex.EncodeToString(ours[2:])))
	}
	steps := []struct{ what, name, req, resp string }{
		{"write_buffers hello", memaccess.WriteBuffersName, "010000000000000000006793957f0000050000000000000068656c6c6f", ""},
		{"read_buffers", memaccess.ReadBuffersName, "010000000000000000006793957f000005006793957f0000", "0100000000000000050000000000000068656c6c6f"},
		{"read_strings", memaccess.ReadStringsName, "010000000000000000006793957f0000", "0100000000000000050000000000000068656c6c6f"},
		{"write_uint32s", memaccess.WriteUInt32sName, "010000000000000000006793957f0000efbeadde", ""},
		{"read_uint64s", memaccess.ReadUInt64sName, "010000000000000000006793957f0000", "0100000000000000efbeadde6f000000"},
		{"read_uint8s", memaccess.ReadUInt8sName, "020000000000000000006793957f000001006793957f0000", "0200000000000000efbe"},
		{"write_pointers", memaccess.WritePointersName, "010000000000000008006793957f00008877665544332211", ""},
		{"read_pointers", memaccess.ReadPointersName, "010000000000000008006793957f0000", "01000000000000008877665544332211"},
		{"write_uint16s", memaccess.WriteUInt16sName, "010000000000000010006793957f0000cdab", ""},
		{"read_uint16s", memaccess.ReadUInt16sName, "010000000000000010006793957f0000", "0100000000000000cdab"},
		{"write_uint8s", memaccess.WriteUInt8sName, "010000000000000014006793957f00005a", ""},
		{"write_uint64s", memaccess.WriteUInt64sName, "010000000000000018006793957f00000807060504030201", ""},
		{"read_uint32s", memaccess.ReadUInt32sName, "020000000000000018006793957f00001c006793957f0000", "02000000000000000807060504030201"},
		{"read_buffers empty", memaccess.ReadBuffersName, "0000000000000000", "0000000000000000"},
		{"write_buffers empty + junk", memaccess.WriteBuffersName, "00000000000000007878", ""},
	}
	for _, st := range steps {
		r := h.CallName(st.name, rebase(st.req))
		require.False(t, r.IsOutOfBandError(), "%s: %v", st.what, r.Err())
		assert.Equal(t, st.resp, hex.EncodeToString(r.Bytes()), st.what)
	}
	assert.Equal(t, byte(0x5a), mem(mb, 32)[20])
}

func TestRoundTrips(t *testing.T) {
	h := svctest.New(t, memaccess.Install)
	base := mapping(t, 4096, 4096)
	a := sps.Addr(base)
	// Unaligned addresses on purpose: the stock executor does plain
	// stores at whatever address it is given.
	call := func(name string, args []byte) []byte {
		t.Helper()
		r := h.CallName(name, args)
		require.False(t, r.IsOutOfBandError(), "%s: %v", name, r.Err())
		return r.Bytes()
	}
	assert.Empty(t, call(memaccess.WriteUInt8sName, sps.WriteUInt8s.AppendArgs(nil, []sps.UIntWrite[uint8]{{Addr: a + 1, Value: 0xa1}, {Addr: a + 2, Value: 0xa2}})))
	assert.Empty(t, call(memaccess.WriteUInt16sName, sps.WriteUInt16s.AppendArgs(nil, []sps.UIntWrite[uint16]{{Addr: a + 101, Value: 0xbeef}})))
	assert.Empty(t, call(memaccess.WriteUInt32sName, sps.WriteUInt32s.AppendArgs(nil, []sps.UIntWrite[uint32]{{Addr: a + 203, Value: 0xcafef00d}})))
	assert.Empty(t, call(memaccess.WriteUInt64sName, sps.WriteUInt64s.AppendArgs(nil, []sps.UIntWrite[uint64]{{Addr: a + 305, Value: 0x0123456789abcdef}})))
	assert.Empty(t, call(memaccess.WritePointersName, sps.WritePointers.AppendArgs(nil, []sps.UIntWrite[sps.Addr]{{Addr: a + 407, Value: a}})))
	assert.Empty(t, call(memaccess.WriteBuffersName, sps.WriteBuffers.AppendArgs(nil, []sps.BufferWrite{{Addr: a + 509, Data: []byte("abc\x00def")}, {Addr: a + 600}})))

	// Element widths are exact: neighbours are untouched.
	m := mem(base, 4096)
	assert.Equal(t, []byte{0, 0xa1, 0xa2, 0}, m[0:4])
	assert.Equal(t, []byte{0, 0xef, 0xbe, 0}, m[100:104])
	assert.Equal(t, []byte{0, 0x0d, 0xf0, 0xfe, 0xca, 0}, m[202:208])

	r8, err := sps.Unmarshal(sps.ReadUInt8s.Ret, call(memaccess.ReadUInt8sName, sps.ReadUInt8s.AppendArgs(nil, []sps.Addr{a + 2, a + 1, a})))
	require.NoError(t, err)
	assert.Equal(t, []uint8{0xa2, 0xa1, 0}, r8)
	r16, err := sps.Unmarshal(sps.ReadUInt16s.Ret, call(memaccess.ReadUInt16sName, sps.ReadUInt16s.AppendArgs(nil, []sps.Addr{a + 101})))
	require.NoError(t, err)
	assert.Equal(t, []uint16{0xbeef}, r16)
	r32, err := sps.Unmarshal(sps.ReadUInt32s.Ret, call(memaccess.ReadUInt32sName, sps.ReadUInt32s.AppendArgs(nil, []sps.Addr{a + 203})))
	require.NoError(t, err)
	assert.Equal(t, []uint32{0xcafef00d}, r32)
	r64, err := sps.Unmarshal(sps.ReadUInt64s.Ret, call(memaccess.ReadUInt64sName, sps.ReadUInt64s.AppendArgs(nil, []sps.Addr{a + 305})))
	require.NoError(t, err)
	assert.Equal(t, []uint64{0x0123456789abcdef}, r64)
	rp, err := sps.Unmarshal(sps.ReadPointers.Ret, call(memaccess.ReadPointersName, sps.ReadPointers.AppendArgs(nil, []sps.Addr{a + 407})))
	require.NoError(t, err)
	assert.Equal(t, []sps.Addr{a}, rp)
	rb, err := sps.Unmarshal(sps.ReadBuffers.Ret, call(memaccess.ReadBuffersName, sps.ReadBuffers.AppendArgs(nil, []sps.AddrRange{{Start: a + 509, End: a + 516}, {Start: a, End: a}})))
	require.NoError(t, err)
	assert.Equal(t, [][]byte{[]byte("abc\x00def"), {}}, rb)
	rs, err := sps.Unmarshal(sps.ReadStrings.Ret, call(memaccess.ReadStringsName, sps.ReadStrings.AppendArgs(nil, []sps.Addr{a + 509, a + 513, a + 512})))
	require.NoError(t, err)
	assert.Equal(t, []string{"abc", "def", ""}, rs)
}

func TestReadStringAcrossPages(t *testing.T) {
	h := svctest.New(t, memaccess.Install)
	base := mapping(t, 3*4096, 4096)
	m := mem(base, 3*4096)
	for i := 10; i < 2*4096+50; i++ {
		m[i] = 'a' + byte(i%26)
	}
	r := h.CallName(memaccess.ReadStringsName, sps.ReadStrings.AppendArgs(nil, []sps.Addr{sps.Addr(base + 10)}))
	require.False(t, r.IsOutOfBandError())
	rs, err := sps.Unmarshal(sps.ReadStrings.Ret, r.Bytes())
	require.NoError(t, err)
	require.Len(t, rs, 1)
	assert.Equal(t, string(m[10:2*4096+50]), rs[0])
}

func TestHostileArguments(t *testing.T) {
	h := svctest.New(t, memaccess.Install)
	base := mapping(t, 4096, 4096)
	for name := range memaccess.Wrappers() {
		for _, args := range [][]byte{
			nil,
			{1, 2, 3},
			sps.AppendU64(nil, 1),                  // count 1, no element
			sps.AppendU64(nil, 1<<62),              // absurd count
			append(sps.AppendU64(nil, 1), 1, 2, 3), // truncated element
		} {
			r := h.CallName(name, args)
			assert.True(t, r.IsOutOfBandError(), "%s(%x) must fail out of band", name, args)
		}
	}
	// write_buffers validates everything before writing anything.
	bad := sps.WriteBuffers.AppendArgs(nil, []sps.BufferWrite{{Addr: sps.Addr(base), Data: []byte("x")}, {Addr: sps.Addr(base), Data: []byte("yy")}})
	bad = bad[:len(bad)-1]
	r := h.CallName(memaccess.WriteBuffersName, bad)
	assert.True(t, r.IsOutOfBandError())
	assert.Equal(t, byte(0), mem(base, 1)[0], "no partial write on undecodable arguments")

	// Inverted range and size overflow.
	for _, rg := range [][]sps.AddrRange{
		{{Start: sps.Addr(base + 8), End: sps.Addr(base)}},
		{{Start: 0, End: 1 << 63}, {Start: 0, End: 1 << 63}},
	} {
		r := h.CallName(memaccess.ReadBuffersName, sps.ReadBuffers.AppendArgs(nil, rg))
		msg, oob := r.OutOfBandError()
		assert.True(t, oob)
		assert.Contains(t, msg, "memaccess: read_buffers")
	}
}

func TestFaultsAreContained(t *testing.T) {
	h := svctest.New(t, memaccess.Install)
	// An unmapped page and a read-only page.
	b, err := syscall.Mmap(-1, 0, 2*4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	require.NoError(t, err)
	base := uintptr(unsafe.Pointer(&b[0]))
	require.NoError(t, syscall.Mprotect(b[4096:], syscall.PROT_READ))
	t.Cleanup(func() { _ = syscall.Munmap(b) })
	gone, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	require.NoError(t, err)
	unmapped := sps.Addr(uintptr(unsafe.Pointer(&gone[0])))
	require.NoError(t, syscall.Munmap(gone))
	ro := sps.Addr(base + 4096)

	tests := []struct {
		name string
		fn   string
		args []byte
	}{
		{"read unmapped", memaccess.ReadUInt64sName, sps.ReadUInt64s.AppendArgs(nil, []sps.Addr{unmapped})},
		{"read zero page", memaccess.ReadUInt8sName, sps.ReadUInt8s.AppendArgs(nil, []sps.Addr{8})},
		{"read buffer unmapped", memaccess.ReadBuffersName, sps.ReadBuffers.AppendArgs(nil, []sps.AddrRange{{Start: unmapped, End: unmapped + 16}})},
		{"read string unmapped", memaccess.ReadStringsName, sps.ReadStrings.AppendArgs(nil, []sps.Addr{unmapped})},
		{"write read-only", memaccess.WriteUInt32sName, sps.WriteUInt32s.AppendArgs(nil, []sps.UIntWrite[uint32]{{Addr: ro, Value: 1}})},
		{"write null", memaccess.WritePointersName, sps.WritePointers.AppendArgs(nil, []sps.UIntWrite[sps.Addr]{{Addr: 0, Value: 1}})},
		{"write buffer read-only", memaccess.WriteBuffersName, sps.WriteBuffers.AppendArgs(nil, []sps.BufferWrite{{Addr: ro - 2, Data: []byte("abcd")}})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := h.CallName(tc.fn, tc.args)
			msg, oob := r.OutOfBandError()
			require.True(t, oob)
			assert.Contains(t, msg, "memory fault")
		})
	}
	// Elements before the faulting one were written; the session still
	// works afterwards.
	r := h.CallName(memaccess.WriteUInt8sName, sps.WriteUInt8s.AppendArgs(nil, []sps.UIntWrite[uint8]{{Addr: sps.Addr(base + 4094), Value: 0x61}, {Addr: ro, Value: 1}}))
	assert.True(t, r.IsOutOfBandError())
	r = h.CallName(memaccess.ReadUInt8sName, sps.ReadUInt8s.AppendArgs(nil, []sps.Addr{sps.Addr(base + 4094)}))
	assert.Equal(t, "0100000000000000"+"61", hex.EncodeToString(r.Bytes()))
}

func TestConcurrentWriters(t *testing.T) {
	h := svctest.New(t, memaccess.Install)
	base := mapping(t, 8*1024, 4096)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 128 {
				a := sps.Addr(base + uintptr(g*1024+i*8))
				r := h.CallName(memaccess.WriteUInt64sName, sps.WriteUInt64s.AppendArgs(nil, []sps.UIntWrite[uint64]{{Addr: a, Value: uint64(g<<32 | i)}}))
				if !r.Empty() {
					t.Errorf("write: %v", r.Err())
				}
			}
		}()
	}
	wg.Wait()
	m := mem(base, 8*1024)
	for g := range 8 {
		for i := range 128 {
			assert.Equal(t, uint64(g<<32|i), binary.LittleEndian.Uint64(m[g*1024+i*8:]))
		}
	}
}

var sink rt.WrapperResult

func keep(r rt.WrapperResult) { sink = r }

// callDirect calls fn without a Session, as the Session's task would.
func callDirect(fn rt.WrapperFunc, args []byte) { fn(nil, args, keep) }

func TestWritesDoNotAllocate(t *testing.T) {
	base := mapping(t, 4096, 4096)
	fn := memaccess.Wrappers()[memaccess.WritePointersName]
	args := sps.WritePointers.AppendArgs(nil, []sps.UIntWrite[sps.Addr]{{Addr: sps.Addr(base), Value: 1}, {Addr: sps.Addr(base + 8), Value: 2}})
	ret := func(rt.WrapperResult) {}
	if n := testing.AllocsPerRun(100, func() { fn(nil, args, ret) }); n != 0 {
		t.Fatalf("write_pointers allocates %v times per call", n)
	}
}

func BenchmarkWrite(b *testing.B) {
	base := mapping(b, 1<<20, 4096)
	for _, n := range []int{1, 64, 4096} {
		ws := make([]sps.UIntWrite[sps.Addr], n)
		for i := range ws {
			ws[i] = sps.UIntWrite[sps.Addr]{Addr: sps.Addr(base + uintptr(i*8)), Value: sps.Addr(i)}
		}
		args := sps.WritePointers.AppendArgs(nil, ws)
		fn := memaccess.Wrappers()[memaccess.WritePointersName]
		b.Run(fmt.Sprintf("op=write_pointers/elems=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				callDirect(fn, args)
			}
		})
		// Reference: a memmove of the same payload size.
		dst, src := mem(base+1<<19, 8*n), make([]byte, 8*n)
		b.Run(fmt.Sprintf("op=memmove-reference/elems=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}

func BenchmarkReadBuffers(b *testing.B) {
	base := mapping(b, 1<<20, 4096)
	fn := memaccess.Wrappers()[memaccess.ReadBuffersName]
	for _, size := range []int{64, 64 << 10, 1 << 20} {
		args := sps.ReadBuffers.AppendArgs(nil, []sps.AddrRange{{Start: sps.Addr(base), End: sps.Addr(base + uintptr(size))}})
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				callDirect(fn, args)
			}
		})
	}
}

func TestReadable(t *testing.T) {
	page := syscall.Getpagesize()
	m, err := syscall.Mmap(-1, 0, 3*page, syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	require.NoError(t, err)
	defer syscall.Munmap(m)
	require.NoError(t, syscall.Mprotect(m[page:2*page], syscall.PROT_NONE))
	base := uintptr(unsafe.Pointer(&m[0]))
	assert.NoError(t, memaccess.Readable(base, uint64(page)))
	assert.NoError(t, memaccess.Readable(base+uintptr(2*page), uint64(page)))
	assert.NoError(t, memaccess.Readable(base, 0))
	err = memaccess.Readable(base+uintptr(page)-8, 16)
	require.Error(t, err, "the second page is PROT_NONE")
	assert.Contains(t, err.Error(), fmt.Sprintf("memory fault at address %#x", base+uintptr(page)))
	assert.ErrorContains(t, memaccess.Readable(base, uint64(3*page)), "memory fault")
	assert.ErrorContains(t, memaccess.Readable(^uintptr(0)-4, 16), "wraps around")
	assert.ErrorContains(t, memaccess.Readable(8, 8), "zero page")
}
