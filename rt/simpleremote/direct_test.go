//go:build linux

package simpleremote_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
)

// bufferWrites encodes mem_write_buffers' argument: count, then each
// write's address, length and bytes.
func bufferWrites(addrs []uint64, bufs [][]byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(bufs)))
	for i, buf := range bufs {
		b = binary.LittleEndian.AppendUint64(b, addrs[i])
		b = binary.LittleEndian.AppendUint64(b, uint64(len(buf)))
		b = append(b, buf...)
	}
	return b
}

// TestDirectWrites: over the kernel's transports a single buffer write of
// 64 KiB or more to a RegisterDirectWriter target lands straight in
// memory and is answered by its direct form, also after a fault (the
// rest of the buffer is read and dropped, the stream stays in step);
// every other shape, and every call over an in-memory Conn, goes to the
// function with its argument bytes.
func TestDirectWrites(t *testing.T) {
	for _, tr := range []wiretest.Transport{wiretest.Pipe, wiretest.Unix, wiretest.TCP, wiretest.Mem} {
		t.Run(string(tr), func(t *testing.T) {
			ts, ctl, _ := attach(t, tr, nil)
			var viaFn atomic.Int32
			fn := func(_ *rt.Session, _ []byte, ret rt.ReturnFunc) {
				viaFn.Add(1)
				ret(rt.ResultBytes([]byte("fn")))
			}
			direct := func(_ *rt.Session, f *rt.WriteFault, ret rt.ReturnFunc) {
				if f != nil {
					ret(rt.ResultBytes(binary.LittleEndian.AppendUint64([]byte("fault"), uint64(f.Addr))))
					return
				}
				ret(rt.ResultBytes([]byte("direct")))
			}
			tag := ts.s.RegisterDirectWriter(fn, direct)
			mem, err := unix.Mmap(-1, 0, 4<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
			require.NoError(t, err)
			t.Cleanup(func() { _ = unix.Munmap(mem) })
			base := uint64(uintptr(unsafe.Pointer(&mem[0])))
			// The top 2 MiB are read-only: writes there fault.
			require.NoError(t, unix.Mprotect(mem[2<<20:], unix.PROT_READ))
			kernel := tr != wiretest.Mem

			call := func(args []byte) string {
				t.Helper()
				res, err := ctl.Call(context.Background(), tag, args)
				require.NoError(t, err)
				return string(res)
			}
			data := func(n int, seed byte) []byte {
				b := make([]byte, n)
				for i := range b {
					b[i] = seed + byte(i*7) + byte(i>>12)
				}
				return b
			}
			want := func(kernelRes string) string {
				if kernel {
					return kernelRes
				}
				return "fn"
			}

			for i, off := range []uint64{0, 100, 4096 + 3} {
				b := data(1<<20, byte(i))
				assert.Equal(t, want("direct"), call(bufferWrites([]uint64{base + off}, [][]byte{b})), "1 MiB at +%d", off)
				if kernel {
					assert.True(t, bytes.Equal(b, mem[off:off+1<<20]), "1 MiB at +%d: memory differs", off)
				}
			}
			b := data(64<<10-24, 9) // the smallest payload taken: 64 KiB
			assert.Equal(t, want("direct"), call(bufferWrites([]uint64{base}, [][]byte{b})))

			fnBefore := viaFn.Load()
			assert.Equal(t, "fn", call(bufferWrites([]uint64{base}, [][]byte{data(32<<10, 1)})), "a small buffer")
			assert.Equal(t, "fn", call(bufferWrites([]uint64{base, base + 1<<20}, [][]byte{data(512<<10, 2), data(512<<10, 3)})), "two buffers")
			assert.Equal(t, "fn", call(append(bufferWrites([]uint64{base}, [][]byte{data(1<<20, 4)}), 0)), "a byte past the buffer")
			assert.Equal(t, "fn", call(bufferWrites([]uint64{^uint64(0) - 100}, [][]byte{data(1<<20, 5)})), "an address range that wraps")
			assert.Equal(t, fnBefore+4, viaFn.Load())

			if !kernel {
				return
			}
			// Across the read-only boundary: the first 256 KiB land, the
			// fault names the boundary (to the page), the next call is read
			// from the right place.
			start := base + 2<<20 - 256<<10
			b = data(1<<20, 6)
			res := call(bufferWrites([]uint64{start}, [][]byte{b}))
			require.True(t, len(res) == 13 && res[:5] == "fault", "answer %q", res)
			at := binary.LittleEndian.Uint64([]byte(res[5:]))
			assert.True(t, at > base+2<<20-4096 && at <= base+2<<20, "fault at %#x, boundary %#x", at, base+2<<20)
			assert.True(t, bytes.Equal(b[:at-start], mem[start-base:at-base]), "the bytes before the fault")
			res = call(bufferWrites([]uint64{16}, [][]byte{data(1<<20, 7)}))
			assert.Equal(t, string(binary.LittleEndian.AppendUint64([]byte("fault"), 16)), res, "the zero page")
			b = data(1<<20, 8)
			assert.Equal(t, "direct", call(bufferWrites([]uint64{base}, [][]byte{b})), "after the faults")
			assert.True(t, bytes.Equal(b, mem[:1<<20]))
		})
	}
}
