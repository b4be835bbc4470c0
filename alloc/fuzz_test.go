//go:build cgo && (amd64 || arm64)

package alloc

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/sps"
)

// le64 is v in little-endian bytes.
func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// FuzzMemoryManagerWrappers feeds arbitrary argument bytes to the four
// wrappers of a live memory manager. The wrappers must never panic, must
// answer every call exactly once with either the out-of-band
// msgDeserializeArgs or a well-formed SPSExpected / SPSError, and must
// never touch memory outside a reservation (the memory manager's own
// bookkeeping is verified against the kernel afterwards). Action addresses
// are replaced by a native no-op so that requests that do validate run
// real actions instead of jumping to random addresses.
func FuzzMemoryManagerWrappers(f *testing.F) {
	const fuzzArenaSize = 1 << 20 // small: Verify walks every page after every call
	e := newEnv(f, Config{ArenaSize: fuzzArenaSize})
	c := e.loadCode()
	inst := e.mm.InstanceAddr()
	base, err := e.mm.Reserve(0x10000)
	if err != nil {
		f.Fatal(err)
	}
	names := []string{MemoryManagerReserveName, MemoryManagerInitializeName, MemoryManagerDeinitializeName, MemoryManagerReleaseName}
	wrappers := make([]rt.WrapperFunc, len(names))
	for i, n := range names {
		wrappers[i], _ = e.s.LookupWrapper(mustSym(f, e, n))
	}
	f.Add(byte(0), sps.MemoryManagerReserve.AppendArgs(nil, inst, 0x3000))
	f.Add(byte(1), sps.MemoryManagerInitialize.AppendArgs(nil, inst, sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{seg(sps.Read|sps.Write, base, 0x1000, []byte("ABCD"))},
		Actions:  []sps.ActionPair{pair(c.nop(), c.nop())},
	}))
	f.Add(byte(1), sps.MemoryManagerInitialize.AppendArgs(nil, inst, sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{seg(sps.Read, base+0x2000, 0x80, nil), seg(sps.Read|sps.Exec|sps.FinalizeLifetime, base+0x3000, 0x2000, nil)},
	}))
	f.Add(byte(2), sps.MemoryManagerDeinitialize.AppendArgs(nil, inst, []sps.Addr{base, base + 0x2000}))
	f.Add(byte(3), sps.MemoryManagerRelease.AppendArgs(nil, inst, []sps.Addr{0x1234000}))
	f.Add(byte(0), sps.MemoryManagerReserve.AppendArgs(nil, inst, 0))
	f.Add(byte(1), sps.MemoryManagerInitialize.AppendArgs(nil, inst, sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{seg(sps.Read|sps.FinalizeLifetime, 0, 0, nil)},
	}))
	f.Add(byte(1), []byte{1, 2, 3})
	// Each stock refusal (docs/protocol.md §5.1), in order: the seeds
	// share the memory manager.
	initialize := func(segs ...sps.SegFinalizeRequest) []byte {
		return sps.MemoryManagerInitialize.AppendArgs(nil, inst, sps.FinalizeRequest{Segments: segs})
	}
	f.Add(byte(1), initialize(seg(sps.Read|sps.Write, base+0x8000, 0x10, make([]byte, 0x20))))     // content over the size
	f.Add(byte(1), initialize(seg(sps.Read, 0x1234000, 0x1000, nil)))                              // in no reservation
	f.Add(byte(1), initialize(seg(sps.Read, base+0x8000, 0x2000, nil)))                            // a region,
	f.Add(byte(1), initialize(seg(sps.Read, base+0x9000, 0x2000, nil)))                            // overlapped from above
	f.Add(byte(1), initialize(seg(sps.Read, base+0x7000, 0x2000, nil)))                            // and from below
	f.Add(byte(2), sps.MemoryManagerDeinitialize.AppendArgs(nil, inst, []sps.Addr{0x1234000}))     // in no reservation
	f.Add(byte(2), sps.MemoryManagerDeinitialize.AppendArgs(nil, inst, []sps.Addr{base + 0x8800})) // no region starts there
	f.Add(byte(2), sps.MemoryManagerDeinitialize.AppendArgs(nil, inst, []sps.Addr{base + 0x8000}))
	f.Add(byte(1), initialize())                                                                                                              // nothing to do
	f.Add(byte(1), sps.MemoryManagerInitialize.AppendArgs(nil, inst, sps.FinalizeRequest{Actions: []sps.ActionPair{pair(c.nop(), c.nop())}})) // actions, no segments
	f.Add(byte(1), initialize(seg(sps.Read, base+0xa000, math.MaxUint64-0x1000, nil)))                                                        // wraps around
	f.Add(byte(1), initialize(seg(0x7f, base+0xa000, 0x1000, nil)))                                                                           // no such group
	f.Add(byte(0), sps.MemoryManagerReserve.AppendArgs(nil, inst+8, 0x1000))                                                                  // no such instance
	f.Add(byte(1), sps.MemoryManagerInitialize.AppendArgs(nil, inst+8, sps.FinalizeRequest{Segments: []sps.SegFinalizeRequest{seg(sps.Read, base+0xb000, 0x1000, nil)}}))
	f.Add(byte(1), append(le64(uint64(inst)+8), 1, 2, 3))                                // no such instance, and undecodable
	f.Add(byte(0), sps.MemoryManagerReserve.AppendArgs(nil, inst, 1<<40))                // beyond physical memory
	f.Add(byte(0), sps.MemoryManagerReserve.AppendArgs(nil, inst, fuzzArenaSize+0x1000)) // an arena of its own
	f.Add(byte(3), sps.MemoryManagerRelease.AppendArgs(nil, inst+8, nil))                // no such instance
	var calls int
	f.Fuzz(func(t *testing.T, which byte, args []byte) {
		calls++
		defer func() {
			for _, a := range e.mm.arenasSnapshot() {
				if err := a.Verify(calls%256 == 0); err != nil {
					t.Fatal(err)
				}
			}
		}()
		w := int(which) % len(wrappers)
		if w == 1 {
			// Neutralize action addresses; keep everything else as given.
			d := sps.NewDecoder(args)
			in := d.Addr()
			var fr sps.FinalizeRequest
			if fr.Decode(&d); !d.Failed() {
				for i := range fr.Actions {
					for _, h := range []*sps.WrapperCall{&fr.Actions[i].Finalize, &fr.Actions[i].Dealloc} {
						if h.Fn != 0 {
							h.Fn = c.noop
						}
					}
				}
				args = sps.MemoryManagerInitialize.AppendArgs(nil, in, fr)
			}
		}
		if w == 3 && len(args) >= 8 && binary.LittleEndian.Uint64(args) == uint64(inst) {
			// Keep the fixture's reservations: release only other addresses.
			d := sps.NewDecoder(args[8:])
			if n := d.Count(8, "n"); !d.Failed() {
				for range n {
					if a := d.Addr(); a == base || a == c.noop { // the code is at its reservation's start
						return
					}
				}
			}
		}
		var got []rt.WrapperResult
		wrappers[w](e.s, args, func(r rt.WrapperResult) { got = append(got, r) })
		if len(got) != 1 {
			t.Fatalf("%d results", len(got))
		}
		r := got[0]
		if msg, ok := r.OutOfBandError(); ok {
			if msg != msgDeserializeArgs {
				t.Fatalf("out-of-band %q", msg)
			}
			return
		}
		b := r.Bytes()
		if len(b) == 0 || b[0] > 1 {
			t.Fatalf("malformed result %x", b)
		}
		if (w <= 1) == (b[0] == 1) { // Expected success / SPSError failure
			if w <= 1 && len(b) != 9 {
				t.Fatalf("malformed success %x", b)
			}
			if w == 0 && binary.LittleEndian.Uint64(args[8:]) > fuzzArenaSize {
				// A reservation larger than an arena has an arena of its
				// own, which Verify walks page by page after every call:
				// release it, or the fuzzer slows down as they pile up.
				if err := e.mm.Release([]sps.Addr{sps.Addr(binary.LittleEndian.Uint64(b[1:]))}); err != nil {
					t.Fatal(err)
				}
			}
			return
		}
		if w >= 2 && b[0] == 0 && len(b) == 1 {
			return
		}
		d := sps.NewDecoder(b[1:])
		if _ = d.String(); d.Failed() || d.Remaining() != 0 {
			t.Fatalf("malformed error %x", b)
		}
	})
}
