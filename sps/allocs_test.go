package sps

import (
	"errors"
	"sync"
	"testing"
)

// Allocation gates: every path documented as allocation-free is pinned
// here with testing.AllocsPerRun (plain testing: testify allocates).

func TestAllocsDecode(t *testing.T) {
	u64 := AppendU64(nil, 42)
	bytes16 := AppendBytes(nil, make([]byte, 16))
	bytes1M := AppendBytes(nil, make([]byte, 1<<20))
	seq := make([]uint32, 1000)
	seqIn := AppendU32s(nil, seq)
	tuple := Tuple3(U64, BytesView, Bool)
	tupleIn := tuple.Append(nil, Triple[uint64, []byte, bool]{7, make([]byte, 32), true})
	fr := multiFR()
	frIn := fr.Append(nil)
	shm := sharedMulti()
	shmIn := shm.Append(nil)
	reserveIn := MemoryManagerReserve.AppendArgs(nil, inst, 4096)
	writes := []UIntWrite[uint8]{{1, 2}, {3, 4}}
	writesIn := WriteUInt8s.AppendArgs(nil, writes)
	errOK := []byte{0}
	resIn := MemoryManagerReserve.AppendResult(nil, Expected[Addr]{Value: a1})

	var (
		d       Decoder // reused, as a connection's reader would
		u32s    = make([]uint32, 0, 1000)
		r       FinalizeRequest
		sr      SharedFinalizeRequest
		wr      = make([]UIntWrite[uint8], 0, 4)
		sinkU64 uint64
		sinkB   []byte
	)
	tests := []struct {
		name string
		f    func()
	}{
		{"U64", func() { d.Reset(u64); sinkU64 = d.U64() }},
		{"scalars", func() { d.Reset(reserveIn); d.Addr(); d.Size() }},
		{"Bytes/16", func() { d.Reset(bytes16); sinkB = d.Bytes() }},
		{"Bytes/1MiB", func() { d.Reset(bytes1M); sinkB = d.Bytes() }},
		{"U32s/reused", func() { d.Reset(seqIn); u32s = d.U32s(u32s[:0]) }},
		{"Tuple3/view", func() { d.Reset(tupleIn); sinkB = tuple.Decode(&d).Second }},
		{"FinalizeRequest.Decode/reused", func() { d.Reset(frIn); r.Decode(&d) }},
		{"SharedFinalizeRequest.Decode/reused", func() { d.Reset(shmIn); sr.Decode(&d) }},
		{"DecodeSeq/reused", func() { d.Reset(writesIn); wr = DecodeSeq(&d, UInt8WriteCodec, wr[:0]) }},
		{"Unmarshal(U64)", func() { sinkU64, _ = Unmarshal(U64, u64) }},
		{"Func2.DecodeArgs", func() { _, sinkU64, _ = MemoryManagerReserve.DecodeArgs(reserveIn) }},
		{"Func2.DecodeResult", func() { v, _ := MemoryManagerReserve.DecodeResult(resIn); sinkU64 = uint64(v.Value) }},
		{"ErrorCodec/success", func() { d.Reset(errOK); _ = ErrorCodec.Decode(&d) }},
	}
	for _, tc := range tests {
		if n := testing.AllocsPerRun(100, tc.f); n != 0 {
			t.Errorf("%s: %v allocs per run, want 0", tc.name, n)
		}
		if d.Failed() {
			t.Errorf("%s: %v", tc.name, d.Err())
		}
	}
	_, _ = sinkU64, sinkB
}

func TestAllocsEncode(t *testing.T) {
	buf := make([]byte, 0, 2<<20)
	seq := make([]uint32, 1000)
	payload := make([]byte, 1<<20)
	fr := multiFR()
	tuple := Tuple3(U64, BytesView, Bool)
	tv := Triple[uint64, []byte, bool]{7, make([]byte, 32), true}
	setup := setupStock()
	tests := []struct {
		name string
		f    func()
	}{
		{"AppendU64", func() { buf = AppendU64(buf[:0], 1) }},
		{"AppendBytes/1MiB", func() { buf = AppendBytes(buf[:0], payload) }},
		{"AppendU32s", func() { buf = AppendU32s(buf[:0], seq) }},
		{"AppendString", func() { buf = AppendString(buf[:0], "hello") }},
		{"Tuple3.Append", func() { buf = tuple.Append(buf[:0], tv) }},
		{"FinalizeRequest.Append", func() { buf = fr.Append(buf[:0]) }},
		{"FinalizeRequest.Size", func() { _ = fr.Size() }},
		{"SetupInfoCodec.Append", func() { buf = SetupInfoCodec.Append(buf[:0], setup) }},
		{"ErrorCodec.Append", func() { buf = ErrorCodec.Append(buf[:0], errSentinel) }},
		{"Func2.AppendArgs", func() { buf = MemoryManagerReserve.AppendArgs(buf[:0], 1, 2) }},
		{"Func2.AppendResult", func() { buf = MemoryManagerReserve.AppendResult(buf[:0], Expected[Addr]{Value: 5}) }},
	}
	for _, tc := range tests {
		if n := testing.AllocsPerRun(100, tc.f); n != 0 {
			t.Errorf("%s: %v allocs per run, want 0", tc.name, n)
		}
	}
	// Marshal sizes its buffer exactly: one allocation.
	if n := testing.AllocsPerRun(100, func() { buf = Marshal(FinalizeRequestCodec, fr) }); n != 1 {
		t.Errorf("Marshal: %v allocs per run, want 1", n)
	}
	if len(buf) != cap(buf) {
		t.Errorf("Marshal: len %d cap %d", len(buf), cap(buf))
	}
}

var errSentinel = errors.New("sentinel")

// TestConcurrentCodecs hammers shared codec values and the decoder pool
// from many goroutines (run with -race).
func TestConcurrentCodecs(t *testing.T) {
	fr := captureA()
	args := MemoryManagerInitialize.AppendArgs(nil, inst, fr)
	want := render(fr)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			for range 500 {
				a, got, err := MemoryManagerInitialize.DecodeArgs(args)
				if err != nil || a != inst || render(got) != want {
					errs <- errors.New("concurrent decode mismatch")
					return
				}
				if _, err := Unmarshal(U64, args[:4]); err == nil {
					errs <- errors.New("truncated decode succeeded")
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
