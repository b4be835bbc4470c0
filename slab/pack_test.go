//go:build linux

package slab

import (
	"bytes"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPackerPacksAndFinalizes(t *testing.T) {
	forModes(t, func(t *testing.T, cfg Config) {
		s := newSlab(t, cfg)
		pg := s.PageSize()
		p := newPacker(t, s, ProtRX)

		// 3 blocks of 100 bytes aligned to 16 land in one page.
		var bs []Block
		for i := range 3 {
			b, err := p.Alloc(100, 16)
			require.NoError(t, err)
			require.Zero(t, b.Addr%16)
			require.NoError(t, p.Write(b, 0, bytes.Repeat([]byte{byte(i + 1)}, 100)))
			bs = append(bs, b)
		}
		assert.Equal(t, bs[0].Addr/pg, bs[2].Addr/pg, "blocks share a page")
		assert.Equal(t, 1, s.Stats().LiveRegions)
		assert.False(t, s.IsExecutable(bs[0].Addr, 1))

		a := s.Stats()
		require.NoError(t, p.Finalize())
		b := s.Stats()
		assert.Equal(t, uint64(1), b.Protects-a.Protects, "one protection change for the packed page")
		assert.Equal(t, uint64(1), b.Flushes-a.Flushes)
		for i, blk := range bs {
			assert.True(t, s.IsExecutable(blk.Addr, blk.Size))
			assert.Equal(t, bytes.Repeat([]byte{byte(i + 1)}, 100), view(blk.Addr, 100))
		}
		// Finalized blocks are no longer writable.
		assert.ErrorIs(t, p.Write(bs[0], 0, []byte{1}), ErrNotWritable)
		require.NoError(t, s.Verify(true))

		// Next block: single-map opens a fresh page; dual-map keeps packing
		// into the executable page and only flushes.
		nb, err := p.Alloc(64, 64)
		require.NoError(t, err)
		require.NoError(t, p.Write(nb, 0, bytes.Repeat([]byte{9}, 64)))
		c := s.Stats()
		require.NoError(t, p.Finalize())
		d := s.Stats()
		if cfg.DualMap {
			assert.Equal(t, bs[0].Addr/pg, nb.Addr/pg, "dual-map keeps packing into the executable page")
			assert.Equal(t, uint64(0), d.Protects-c.Protects, "no protection change, only a flush")
			assert.Equal(t, uint64(1), d.Flushes-c.Flushes)
		} else {
			assert.NotEqual(t, bs[0].Addr/pg, nb.Addr/pg, "single-map cannot reopen an executable page")
			assert.Equal(t, uint64(1), d.Protects-c.Protects)
		}
		assert.Equal(t, bytes.Repeat([]byte{9}, 64), view(nb.Addr, 64))
		assert.True(t, s.IsExecutable(nb.Addr, 64))

		// Region-level operations refuse packer regions.
		r, ok := s.Lookup(bs[0].Addr, 1)
		require.True(t, ok)
		assert.ErrorIs(t, s.Release(r), ErrForeign)
		assert.ErrorIs(t, s.Protect(bs[0].Addr, 1, ProtRead), ErrForeign)
		assert.ErrorIs(t, s.Write(bs[0].Addr, []byte{1}, 1), ErrForeign)

		// Free everything; double free is detected.
		for _, blk := range append(bs, nb) {
			require.NoError(t, s.FreeBlock(blk))
		}
		assert.ErrorIs(t, s.FreeBlock(bs[1]), ErrDoubleFree)
		assert.ErrorIs(t, s.FreeBlock(Block{}), ErrForeign)
		require.NoError(t, p.Close())
		assert.Zero(t, s.Stats().LiveRegions, "regions return once closed and empty")
		assert.False(t, s.IsExecutable(bs[0].Addr, 1))
		_, err = p.Alloc(1, 1)
		assert.ErrorIs(t, err, ErrClosed)
		require.NoError(t, s.Verify(true))
	})
}

func TestPackerLargeAndOverflow(t *testing.T) {
	forModes(t, func(t *testing.T, cfg Config) {
		s := newSlab(t, cfg)
		pg := s.PageSize()
		p := newPacker(t, s, ProtRead)
		small, err := p.Alloc(pg-64, 8)
		require.NoError(t, err)
		big, err := p.Alloc(3*pg, 16) // own region
		require.NoError(t, err)
		next, err := p.Alloc(128, 8) // does not fit behind small: new page
		require.NoError(t, err)
		assert.NotEqual(t, small.Addr/pg, next.Addr/pg)
		require.NoError(t, p.Write(big, 3*pg-4, []byte{1, 2, 3, 4}))
		assert.ErrorIs(t, p.Write(big, 3*pg-3, []byte{1, 2, 3, 4}), ErrBadSize)
		_, err = p.Alloc(0, 8)
		assert.ErrorIs(t, err, ErrBadSize)
		_, err = p.Alloc(8, 3)
		assert.ErrorIs(t, err, ErrBadSize)

		a := s.Stats().Protects
		require.NoError(t, p.Finalize())
		assert.Equal(t, uint64(3), s.Stats().Protects-a, "one per region: small's page, big's pages, next's page")
		assert.Equal(t, []byte{1, 2, 3, 4}, view(big.Addr+3*pg-4, 4))
		require.NoError(t, s.Verify(true))

		// A block freed before Finalize: its region is still finalized and
		// then returned.
		q := newPacker(t, s, ProtRX)
		gone, err := q.Alloc(32, 16)
		require.NoError(t, err)
		require.NoError(t, s.FreeBlock(gone))
		require.NoError(t, q.Close())

		for _, b := range []Block{small, big, next} {
			require.NoError(t, s.FreeBlock(b))
		}
		require.NoError(t, p.Close())
		assert.Zero(t, s.Stats().LiveRegions)
		require.NoError(t, s.Verify(true))
	})
}

func TestPackerForeignBlock(t *testing.T) {
	s := newSlab(t, Config{Size: 1 << 20})
	p1, _ := s.NewPacker(ProtRX, 0)
	p2, _ := s.NewPacker(ProtRX, 0)
	b, err := p1.Alloc(16, 16)
	require.NoError(t, err)
	assert.ErrorIs(t, p2.Write(b, 0, []byte{1}), ErrForeign)
	other := newSlab(t, Config{Size: 1 << 20})
	assert.ErrorIs(t, other.FreeBlock(b), ErrForeign)
	require.NoError(t, p1.Close())
	require.NoError(t, p2.Close())
	require.NoError(t, s.FreeBlock(b))
	assert.Zero(t, s.Stats().LiveRegions)
}

// TestPackerHammer: one Packer per goroutine, frees from other goroutines.
func TestPackerHammer(t *testing.T) {
	forModes(t, func(t *testing.T, cfg Config) {
		s := newSlab(t, cfg)
		const P = 6
		n := rounds(400, 80)
		frees := make(chan Block, 64)
		var freers sync.WaitGroup
		for range 2 {
			freers.Add(1)
			go func() {
				defer freers.Done()
				for b := range frees {
					if err := s.FreeBlock(b); err != nil {
						t.Errorf("free: %v", err)
					}
				}
			}()
		}
		var wg sync.WaitGroup
		for g := range P {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p, err := s.NewPacker(ProtRX, 0)
				if err != nil {
					t.Error(err)
					return
				}
				for i := range n {
					sz := uintptr(1 + (i*37+g)%300)
					b, err := p.Alloc(sz, 16)
					if err != nil {
						t.Errorf("alloc: %v", err)
						return
					}
					pat := bytes.Repeat([]byte{byte(g)}, int(sz))
					if err := p.Write(b, 0, pat); err != nil {
						t.Errorf("write: %v", err)
						return
					}
					if i%3 == 2 {
						if err := p.Finalize(); err != nil {
							t.Errorf("finalize: %v", err)
							return
						}
					}
					_ = p.Finalize()
					if !bytes.Equal(view(b.Addr, sz), pat) || !s.IsExecutable(b.Addr, sz) {
						t.Errorf("block %#x wrong after finalize", b.Addr)
						return
					}
					frees <- b
				}
				if err := p.Close(); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		close(frees)
		freers.Wait()
		assert.Zero(t, s.Stats().LiveRegions)
		require.NoError(t, s.Verify(true))
	})
}
