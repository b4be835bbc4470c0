package slabfuzz

import (
	"bytes"
	"errors"
	"testing"

	"github.com/orcgo/orcrt/internal/sysmem"
	"github.com/orcgo/orcrt/slab"
)

// model is the fuzzer's own expectation of every live region: the
// protection of each page and the bytes last written (nil = unknown).
type model struct {
	r     slab.Region
	prot  []slab.Prot
	bytes []byte // expected content, valid where known[i]
	known []bool
}

type block struct {
	b   slab.Block
	pat byte
	fin bool
}

// ops reads the fuzz input as a program.
type ops struct {
	data []byte
	pos  int
}

func (o *ops) next() (byte, bool) {
	if o.pos >= len(o.data) {
		return 0, false
	}
	b := o.data[o.pos]
	o.pos++
	return b, true
}

func (o *ops) byteOr0() byte { b, _ := o.next(); return b }

var prots = []slab.Prot{
	slab.ProtNone, slab.ProtRead, slab.ProtRW, slab.ProtRX,
	slab.ProtRead | slab.ProtWrite | slab.ProtExec, // must be refused
	slab.ProtExec, // must be refused
}

// FuzzSlabOps runs random sequences of reserve / protect / write / release
// / double release and packer alloc / write / finalize / free against a
// small arena, checking after every step that regions never overlap, are
// page-aligned and inside the arena, that W|X is always refused, that
// writes succeed exactly when every page is writable, that content
// survives, that IsExecutable matches the model, and — at checkpoints and
// at the end — that the kernel's view (/proc/self/maps) matches the model
// and no page of the arena is ever writable and executable.
func FuzzSlabOps(f *testing.F) {
	f.Add([]byte{0, 0, 3, 0, 2, 0, 0, 1, 3, 3, 0, 0, 2, 9, 5, 1, 0})
	f.Add([]byte{1, 0, 7, 0, 5, 2, 0, 0, 2, 0, 4, 3, 0, 1, 1, 0, 7, 5})
	f.Add([]byte{2, 6, 1, 6, 50, 6, 20, 8, 8, 9, 0, 6, 3, 8, 5})
	f.Add(bytes.Repeat([]byte{0, 7, 2, 0, 1, 3, 3, 0, 0, 40, 5, 1, 0}, 8))
	f.Add(bytes.Repeat([]byte{0, 255}, 40))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 1 {
			return
		}
		o := &ops{data: data}
		head := o.byteOr0()
		page := sysmem.PageSize()
		cfg := slab.Config{Size: 256 * page, DualMap: head&1 != 0}
		switch head >> 1 & 3 {
		case 0:
			cfg.NoCache = true
		case 1:
			cfg.MaxCached = 4 * page
		}
		s, err := slab.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := s.Close(); err != nil {
				t.Error(err)
			}
		}()
		arenaBase, arenaSize := s.Arena()

		var live []*model
		var stale []slab.Region
		var pk *slab.Packer
		var blocks []block

		check := func(kernel bool) {
			t.Helper()
			for i, m := range live {
				if m.r.Base()%page != 0 || m.r.Size()%page != 0 || m.r.Base() < arenaBase || m.r.End() > arenaBase+arenaSize {
					t.Fatalf("region %#x+%#x misaligned or outside the arena", m.r.Base(), m.r.Size())
				}
				for _, n := range live[i+1:] {
					if m.r.Base() < n.r.End() && n.r.Base() < m.r.End() {
						t.Fatalf("regions overlap: %#x+%#x and %#x+%#x", m.r.Base(), m.r.Size(), n.r.Base(), n.r.Size())
					}
				}
				for p, pr := range m.prot {
					if got := s.IsExecutable(m.r.Base()+uintptr(p)*page, 1); got != (pr&slab.ProtExec != 0) {
						t.Fatalf("page %#x: IsExecutable %t, model %v", m.r.Base()+uintptr(p)*page, got, pr)
					}
					if pr&slab.ProtRead != 0 {
						got := sysmem.View(m.r.Base()+uintptr(p)*page, page)
						for k := range got {
							j := p*int(page) + k
							if m.known[j] && got[k] != m.bytes[j] {
								t.Fatalf("content of %#x changed", m.r.Base()+uintptr(j))
							}
						}
					}
				}
			}
			for _, b := range blocks {
				if b.fin && !bytes.Equal(sysmem.View(b.b.Addr, b.b.Size), bytes.Repeat([]byte{b.pat}, int(b.b.Size))) {
					t.Fatalf("block %#x content changed", b.b.Addr)
				}
			}
			if !kernel {
				return
			}
			if err := s.Verify(true); err != nil {
				t.Fatal(err)
			}
			maps, err := slab.ReadMaps()
			if err != nil {
				t.Fatal(err)
			}
			for _, mp := range maps {
				if mp.Prot&(slab.ProtWrite|slab.ProtExec) == slab.ProtWrite|slab.ProtExec && mp.Start < arenaBase+arenaSize && mp.End > arenaBase {
					t.Fatalf("kernel: arena mapping [%#x,%#x) is %v", mp.Start, mp.End, mp.Prot)
				}
			}
			for _, m := range live {
				for p, want := range m.prot {
					a := m.r.Base() + uintptr(p)*page
					found := false
					for _, mp := range maps {
						if mp.Start <= a && a < mp.End {
							found = true
							if mp.Prot != want {
								t.Fatalf("kernel: page %#x is %v, model %v", a, mp.Prot, want)
							}
						}
					}
					if !found {
						t.Fatalf("kernel: page %#x of a live region is unmapped", a)
					}
				}
			}
		}

		pick := func() (*model, int) {
			if len(live) == 0 {
				return nil, -1
			}
			i := int(o.byteOr0()) % len(live)
			return live[i], i
		}

		for steps := 0; ; steps++ {
			op, ok := o.next()
			if !ok {
				break
			}
			switch op % 10 {
			case 0: // reserve
				size := uintptr(o.byteOr0())%(8*page) + 1
				r, err := s.Reserve(size)
				if errors.Is(err, slab.ErrNoSpace) {
					continue
				}
				if err != nil {
					t.Fatalf("reserve %d: %v", size, err)
				}
				if r.Size() != (size+page-1)/page*page {
					t.Fatalf("reserve %d gave %d bytes", size, r.Size())
				}
				n := int(r.Size() / page)
				m := &model{r: r, prot: make([]slab.Prot, n), bytes: make([]byte, r.Size()), known: make([]bool, r.Size())}
				for i := range m.prot {
					m.prot[i] = slab.ProtRW
				}
				live = append(live, m)
			case 1: // release (or double release of a stale handle)
				if len(stale) > 0 && o.byteOr0()%4 == 0 {
					if err := s.Release(stale[0]); !errors.Is(err, slab.ErrDoubleFree) {
						t.Fatalf("double release: %v", err)
					}
					continue
				}
				m, i := pick()
				if m == nil {
					continue
				}
				if err := s.Release(m.r); err != nil {
					t.Fatalf("release: %v", err)
				}
				stale = append(stale[:0], m.r)
				live = append(live[:i], live[i+1:]...)
			case 2, 3: // protect a page span
				m, _ := pick()
				if m == nil {
					continue
				}
				n := len(m.prot)
				lo := int(o.byteOr0()) % n
				cnt := int(o.byteOr0())%(n-lo) + 1
				pr := prots[int(o.byteOr0())%len(prots)]
				err := s.Protect(m.r.Base()+uintptr(lo)*page, uintptr(cnt)*page-uintptr(o.byteOr0()%16), pr)
				switch {
				case pr.Check() != nil:
					if err == nil || !(errors.Is(err, slab.ErrWriteExec) || errors.Is(err, slab.ErrExecOnly)) {
						t.Fatalf("protect %v: want refusal, got %v", pr, err)
					}
				case err != nil:
					t.Fatalf("protect %v: %v", pr, err)
				default:
					for p := lo; p < lo+cnt; p++ {
						m.prot[p] = pr
					}
				}
			case 4, 5: // write
				m, _ := pick()
				if m == nil {
					continue
				}
				off := uintptr(o.byteOr0()) * 37 % m.r.Size()
				size := uintptr(o.byteOr0())*53%(m.r.Size()-off) + 1
				clen := uintptr(o.byteOr0()) % (size + 1)
				content := bytes.Repeat([]byte{byte(steps) | 1}, int(clen))
				err := s.Write(m.r.Base()+off, content, size)
				writable := true
				for p := off / page; p <= (off+size-1)/page; p++ {
					writable = writable && m.prot[p]&slab.ProtWrite != 0
				}
				if writable != (err == nil) {
					t.Fatalf("write [%#x,+%#x) writable=%t: %v", off, size, writable, err)
				}
				if err == nil {
					for j := off; j < off+size; j++ {
						m.known[j] = true
						m.bytes[j] = 0
						if j < off+clen {
							m.bytes[j] = byte(steps) | 1
						}
					}
				} else if !errors.Is(err, slab.ErrNotWritable) {
					t.Fatalf("write refused with the wrong error: %v", err)
				}
			case 6: // packer alloc + write
				if pk == nil {
					pk, err = s.NewPacker(slab.ProtRX, 0)
					if err != nil {
						t.Fatal(err)
					}
				}
				size := uintptr(o.byteOr0())%200 + 1
				b, err := pk.Alloc(size, 1<<(o.byteOr0()%6))
				if errors.Is(err, slab.ErrNoSpace) {
					continue
				}
				if err != nil {
					t.Fatalf("packer alloc: %v", err)
				}
				pat := byte(steps) | 0x80
				if err := pk.Write(b, 0, bytes.Repeat([]byte{pat}, int(size))); err != nil {
					t.Fatalf("packer write: %v", err)
				}
				for _, ob := range blocks {
					if b.Addr < ob.b.Addr+ob.b.Size && ob.b.Addr < b.Addr+b.Size {
						t.Fatalf("blocks overlap: %#x+%d and %#x+%d", b.Addr, b.Size, ob.b.Addr, ob.b.Size)
					}
				}
				for _, m := range live {
					if b.Addr < m.r.End() && m.r.Base() < b.Addr+b.Size {
						t.Fatalf("block %#x inside region %#x", b.Addr, m.r.Base())
					}
				}
				blocks = append(blocks, block{b: b, pat: pat})
			case 7: // packer finalize
				if pk == nil {
					continue
				}
				if err := pk.Finalize(); err != nil {
					t.Fatalf("finalize: %v", err)
				}
				for i := range blocks {
					blocks[i].fin = true
					if !s.IsExecutable(blocks[i].b.Addr, blocks[i].b.Size) {
						t.Fatalf("finalized block %#x not executable", blocks[i].b.Addr)
					}
				}
			case 8: // free a block (twice sometimes)
				if len(blocks) == 0 {
					continue
				}
				i := int(o.byteOr0()) % len(blocks)
				b := blocks[i].b
				if err := s.FreeBlock(b); err != nil {
					t.Fatalf("free block: %v", err)
				}
				if err := s.FreeBlock(b); !errors.Is(err, slab.ErrDoubleFree) {
					t.Fatalf("double free block: %v", err)
				}
				blocks = append(blocks[:i], blocks[i+1:]...)
			case 9: // checkpoint against the kernel
				check(true)
				continue
			}
			check(false)
		}
		check(true)
		if pk != nil {
			if err := pk.Close(); err != nil {
				t.Fatal(err)
			}
		}
		for _, b := range blocks {
			if err := s.FreeBlock(b.b); err != nil {
				t.Fatal(err)
			}
		}
		for _, m := range live {
			if err := s.Release(m.r); err != nil {
				t.Fatal(err)
			}
		}
		if st := s.Stats(); st.LiveRegions != 0 {
			t.Fatalf("%d regions still live", st.LiveRegions)
		}
		if err := s.Verify(true); err != nil {
			t.Fatal(err)
		}
	})
}
