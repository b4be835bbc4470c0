//go:build cgo

package executor_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/sps"
)

// BenchmarkCallRoundTrip measures one controller->executor call and its
// result through an in-process executor over OS pipes, against the floor:
// the same bytes ping-ponged through two raw pipes.
func BenchmarkCallRoundTrip(b *testing.B) {
	for _, size := range []int{8, 4096} {
		b.Run(fmt.Sprintf("impl=executor/fn=read_buffers/size=%d", size), func(b *testing.B) {
			s := startInProcess(b, executorOptions())
			c := context.Background()
			mm := s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_Instance")
			res, err := s.CallName(c, "__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper",
				sps.MemoryManagerReserve.AppendArgs(nil, mm, 0x10000))
			require.NoError(b, err)
			r, err := sps.MemoryManagerReserve.DecodeResult(res)
			require.NoError(b, err)
			base := r.Value
			args := sps.ReadBuffers.AppendArgs(nil, []sps.AddrRange{{Start: base, End: base + sps.Addr(size)}})
			fn := s.MustSymbol("__llvm_orc_bootstrap_mem_read_buffers_wrapper")
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				if _, err := s.Call(c, fn, args); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			s.end(b)
		})
		b.Run(fmt.Sprintf("impl=raw-pipe-pingpong-reference/size=%d", size), func(b *testing.B) {
			ar, aw, err := os.Pipe()
			require.NoError(b, err)
			br, bw, err := os.Pipe()
			require.NoError(b, err)
			defer func() { _, _, _, _ = ar.Close(), aw.Close(), br.Close(), bw.Close() }()
			msg := make([]byte, 32+size)
			go func() {
				buf := make([]byte, len(msg))
				for {
					if _, err := readFull(ar, buf); err != nil {
						return
					}
					if _, err := bw.Write(buf); err != nil {
						return
					}
				}
			}()
			buf := make([]byte, len(msg))
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				if _, err := aw.Write(msg); err != nil {
					b.Fatal(err)
				}
				if _, err := readFull(br, buf); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			_ = aw.Close()
		})
	}
}

func readFull(f *os.File, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		k, err := f.Read(buf[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
