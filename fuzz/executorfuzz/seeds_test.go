//go:build cgo && linux

package executorfuzz

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/orcgo/orcrt/fuzz/internal/seedgen/capture"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/sps"
)

// seedModes are the modes of the real-session seeds: 4 KiB reads to EOF,
// and 1-byte reads with the controller going silent at the end (every
// call is answered, then the harness disconnects).
var seedModes = []byte{0x05, 0x80}

// TestGenerateRealSessionSeeds writes testdata/fuzz/FuzzExecutor seeds
// from the sessions fuzz/internal/seedgen recorded in the directory
// $ORCRT_SEEDGEN_CAPTURES (seedgen runs it; it is skipped otherwise),
// then runs each through the harness.
func TestGenerateRealSessionSeeds(t *testing.T) {
	dir := os.Getenv("ORCRT_SEEDGEN_CAPTURES")
	if dir == "" {
		t.Skip("ORCRT_SEEDGEN_CAPTURES is not set (go run ./fuzz/internal/seedgen sets it)")
	}
	sessions, err := capture.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var seeds []capture.Seed
	for _, s := range sessions {
		d := s.Dialect
		stream, dropped := placeholderStream(s, seedWorldFor(t, d))
		if dropped > 0 {
			t.Logf("%s: %d calls dropped (addresses outside the harness's reservations)", s.Name, dropped)
		}
		for _, m := range seedModes {
			seeds = append(seeds, capture.Seed{Session: s.Name, Data: append([]byte{modeOf(m, d)}, stream...)})
		}
	}
	out := filepath.Join("testdata", "fuzz", "FuzzExecutor")
	n, size, err := capture.WriteCorpus(out, capture.Releases(sessions), seeds)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d seeds, %d bytes", out, n, size)
	for _, s := range seeds {
		t.Run(fmt.Sprintf("%s/mode%#02x", s.Session, s.Data[0]), func(t *testing.T) {
			check(t, s.Data, runSession(t, s.Data))
		})
	}
}

// placeholderStream rewrites the controller's stream of s so that it
// means the same to the harness's executor: the address of every
// bootstrap function or instance the world fuzzes becomes its kindSymbol
// placeholder, wherever it appears (call targets, instance arguments,
// action functions); addresses in the k-th reservation become offsets
// into harness reservation k%nReserved. Everything else stays as
// recorded: excluded functions keep their addresses (the harness moves
// them out of reach), as do library symbols and dylib handles (which the
// harness cannot name: resolves of them fail). Calls that reach past
// reservedSize into a reservation are dropped, and counted.
func placeholderStream(s *capture.Session, w *world) (out []byte, dropped int) {
	syms := map[uint64]uint64{}
	for a, name := range s.Names {
		if _, ok := slices.BinarySearch(w.names, name); ok {
			syms[uint64(a)] = phSym(w.sym(name))
		}
	}
	// rewrite replaces every recognized address in b (any offset, as
	// the harness substitutes); ok is false if one is out of reach.
	rewrite := func(b []byte) bool {
		ok := true
		for i := 0; i+8 <= len(b); {
			v := binary.LittleEndian.Uint64(b[i:])
			ph, found := syms[v]
			if k, in := s.Reservation(sps.Addr(v)); !found && in {
				off := v - uint64(s.Reservations[k].Base)
				ok = ok && off < reservedSize
				ph, found = phRes(k%nReserved, int(off%reservedSize)), true
			}
			if !found {
				i++
				continue
			}
			binary.LittleEndian.PutUint64(b[i:], ph)
			i += 8
		}
		return ok
	}
	frames, _ := capture.Frames(s.C2E) // Load checked the stream
	for _, f := range frames {
		p := slices.Clone(f.Payload)
		if !rewrite(p) {
			dropped++
			continue
		}
		if ph, ok := syms[uint64(f.Tag)]; ok {
			f.Tag = sps.Addr(ph)
		}
		out = simpleremote.AppendFrame(out, f.Op, f.SeqNo, f.Tag, p)
	}
	return out, dropped
}
