package simpleremote_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/sps"
)

// pattern fills b with bytes derived from seed.
func seedPattern(b []byte, seed uint64) {
	for i := range b {
		b[i] = byte(seed*131 + uint64(i)*7)
	}
}

// TestBorrowedPayloadsAreRecycled: over real pipes, a borrowing wrapper
// sees exactly the bytes sent for its call while it runs — also when it
// answers later from another goroutine — and its buffers come back for
// later payloads (the CA reuses them), while an owning wrapper's buffers
// are never reused.
func TestBorrowedPayloadsAreRecycled(t *testing.T) {
	ts, ctl, _ := attach(t, wiretest.Pipe, nil)
	var (
		mu       sync.Mutex
		bad      []string
		borrowed = map[uintptr][]int{} // buffer address -> event numbers
		kept     = map[uint64][]byte{}
		ownedAt  = map[uintptr]int{} // buffer address -> event number
		events   int
	)
	check := func(a []byte) (uint64, bool) {
		if len(a) < 8 {
			return 0, false
		}
		seed := binary.LittleEndian.Uint64(a)
		want := make([]byte, len(a)-8)
		seedPattern(want, seed)
		return seed, bytes.Equal(a[8:], want)
	}
	borrow := ts.s.RegisterWrapper(func(_ *rt.Session, a []byte, ret rt.ReturnFunc) {
		seed, ok := check(a)
		mu.Lock()
		events++
		p := uintptr(unsafe.Pointer(unsafe.SliceData(a)))
		borrowed[p] = append(borrowed[p], events)
		if !ok {
			bad = append(bad, "borrowed payload corrupted on entry")
		}
		mu.Unlock()
		go func() {
			// Still ours until ret: read it again later.
			if _, ok := check(a); !ok {
				mu.Lock()
				bad = append(bad, "borrowed payload changed before ret")
				mu.Unlock()
			}
			ret(rt.ResultBytes(binary.LittleEndian.AppendUint64(nil, seed)))
		}()
	}, rt.BorrowArgs)
	owning := ts.s.RegisterWrapper(func(_ *rt.Session, a []byte, ret rt.ReturnFunc) {
		seed, ok := check(a)
		mu.Lock()
		kept[seed] = a
		events++
		ownedAt[uintptr(unsafe.Pointer(unsafe.SliceData(a)))] = events
		if !ok {
			bad = append(bad, "owned payload corrupted on entry")
		}
		mu.Unlock()
		ret(rt.EmptyResult())
	})

	ctx := ctxT(t)
	sizes := []int{16, 100, 3000, 70 << 10, 300 << 10}
	const rounds = 40
	var wg sync.WaitGroup
	for r := range rounds {
		for i, n := range sizes {
			seed := uint64(r*len(sizes) + i + 1)
			args := make([]byte, 8+n)
			binary.LittleEndian.PutUint64(args, seed)
			seedPattern(args[8:], seed)
			fn := borrow
			if seed%4 == 0 {
				fn = owning
			}
			call, err := ctl.Start(fn, args)
			require.NoError(t, err)
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := call.Wait(ctx)
				if err != nil || (fn == borrow && binary.LittleEndian.Uint64(res) != seed) {
					mu.Lock()
					bad = append(bad, "wrong result")
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, bad)
	reused := 0
	for _, ev := range borrowed {
		if len(ev) > 1 {
			reused++
		}
	}
	assert.Positive(t, reused, "no borrowed buffer was ever recycled")
	for seed, a := range kept {
		if _, ok := check(a); !ok || binary.LittleEndian.Uint64(a) != seed {
			t.Fatalf("owned payload of call %d was overwritten", seed)
		}
		// It may have been borrowed (and given back) before; never after.
		p := uintptr(unsafe.Pointer(unsafe.SliceData(a)))
		for _, ev := range borrowed[p] {
			assert.Less(t, ev, ownedAt[p], "an owned buffer was lent again")
		}
	}
}

// TestWireCallAllocations pins what a wrapper call costs the executor in
// allocations, end to end over real pipes — the CA's reader, the
// Session's dispatch (rt.GoRunner), the wrapper, the Result write: none
// for a borrowing wrapper with an empty result once warm (the payload,
// the call record and its ReturnFunc are all recycled). The controller
// side here is raw reads and writes that allocate nothing.
func TestWireCallAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops objects at random under the race detector")
	}
	ts, err := newTestSession()
	require.NoError(t, err)
	defer ts.close()
	borrow := ts.s.RegisterWrapper(func(_ *rt.Session, a []byte, ret rt.ReturnFunc) {
		if len(a) != 4096 {
			panic("bad args")
		}
		ret(rt.EmptyResult())
	}, rt.BorrowArgs)
	owning := ts.s.RegisterWrapper(func(_ *rt.Session, _ []byte, ret rt.ReturnFunc) { ret(rt.EmptyResult()) })

	ex, ctlEnd, err := wiretest.Connect(wiretest.Pipe)
	require.NoError(t, err)
	ca := simpleremote.New(ex, nil)
	require.NoError(t, ts.s.Attach(ca, ts.bi))
	defer func() {
		_ = ctlEnd.Close()
		waitDone(t, ca)
	}()
	if _, _, err := simpleremote.NewReader(ctlEnd, 0, 0).ReadMsg(); err != nil { // Setup
		t.Fatal(err)
	}
	reply := make([]byte, simpleremote.HeaderSize)
	for _, tc := range []struct {
		name string
		fn   sps.Addr
		max  float64
	}{
		{"borrowing", borrow, 0},
		// The payload (one 4 KiB buffer), the call record and its bound
		// ReturnFunc, which the owning wrapper may keep.
		{"owning", owning, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frame := simpleremote.AppendFrame(nil, simpleremote.OpCallWrapper, 1, tc.fn, make([]byte, 4096))
			call := func() {
				if _, err := ctlEnd.Write(frame); err != nil {
					t.Fatal(err)
				}
				if _, err := io.ReadFull(ctlEnd, reply); err != nil {
					t.Fatal(err)
				}
			}
			for range 20 {
				call() // warm up: pools, idle workers
			}
			n := testing.AllocsPerRun(500, call)
			if n > tc.max {
				t.Errorf("%v allocations per call, want at most %v", n, tc.max)
			}
		})
	}
}
