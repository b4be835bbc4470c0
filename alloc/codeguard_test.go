//go:build cgo && (amd64 || arm64)

package alloc

import (
	"errors"
	"fmt"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/cmem"
	"github.com/orcgo/orcrt/native/codemap"
	"github.com/orcgo/orcrt/native/jitsyms"
	"github.com/orcgo/orcrt/sps"
)

// TestActionsAtNonCode: finalize and dealloc actions whose address is not
// executable code — Go heap, C heap, a read-write JIT'd page, a
// non-canonical address — fail with an error naming the address instead
// of crashing the process; the usual rollback follows, and real code
// still runs.
func TestActionsAtNonCode(t *testing.T) {
	e, c := newCodeEnv(t)
	l := newLog(t, 16)
	cbuf := cmem.Malloc(64)
	defer cmem.Free(cbuf)
	data := e.rwBlock(4096)
	for name, fn := range map[string]sps.Addr{
		"Go heap":       sps.Addr(uintptr(unsafe.Pointer(new([64]byte)))),
		"C heap":        sps.Addr(cbuf),
		"JIT'd RW page": data,
		"non-canonical": 0xbad0_0000_0000_1000,
	} {
		t.Run(name, func(t *testing.T) {
			l.reset()
			want := fmt.Sprintf("alloc: action not run: codemap: %#x is not executable code in this process", uint64(fn))
			_, err := Runner{Session: e.s}.RunFinalizeActions([]sps.ActionPair{
				pair(c.rec(l, 1), c.rec(l, 2)),
				pair(sps.WrapperCall{Fn: fn, Args: []byte{}}, c.rec(l, 3)),
			}, nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), want)
			var ae *ActionError
			require.True(t, errors.As(err, &ae))
			assert.Equal(t, fn, ae.Fn)
			assert.ErrorIs(t, err, codemap.ErrNotCode)
			assert.Equal(t, []uint64{1, 2}, l.entries(), "the collected dealloc ran in the rollback")

			// Through the wrapper, as the controller sees it.
			base, err := e.mm.Reserve(4096)
			require.NoError(t, err)
			r := e.call(MemoryManagerInitializeName, sps.MemoryManagerInitialize.AppendArgs(nil, e.mm.InstanceAddr(), sps.FinalizeRequest{
				Segments: []sps.SegFinalizeRequest{seg(sps.Read|sps.Write, base, 4096, nil)},
				Actions:  []sps.ActionPair{pair(sps.WrapperCall{Fn: fn, Args: []byte{}}, none)},
			}))
			v, derr := sps.MemoryManagerInitialize.DecodeResult(r.Bytes())
			require.NoError(t, derr)
			require.Error(t, v.Err)
			assert.Contains(t, v.Err.Error(), want)

			// A dealloc action at non-code fails at release, reported, the
			// others still run.
			l.reset()
			_, err = e.mm.Initialize(&sps.FinalizeRequest{
				Segments: []sps.SegFinalizeRequest{seg(sps.Read|sps.Write, base, 4096, nil)},
				Actions:  []sps.ActionPair{pair(none, c.rec(l, 7)), pair(none, sps.WrapperCall{Fn: fn, Args: []byte{}})},
			})
			require.NoError(t, err)
			err = e.mm.Release([]sps.Addr{base})
			require.Error(t, err)
			assert.Contains(t, err.Error(), want)
			assert.Equal(t, []uint64{7}, l.entries())
		})
	}
}

// TestReleaseForgetsJITNames: a release drops the names native/jitsyms holds
// for the released code, so a crash report never names freed code.
func TestReleaseForgetsJITNames(t *testing.T) {
	e := newEnv(t, Config{})
	base := e.reserve(4096)
	_, err := e.mm.Initialize(&sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{seg(sps.Read|sps.Exec, base, 4096, []byte{0xc3})},
	})
	require.NoError(t, err)
	jitsyms.AddAll([]jitsyms.Sym{{Start: uint64(base), End: uint64(base) + 1, Name: "ret"}})
	_, ok := jitsyms.Lookup(uint64(base))
	require.True(t, ok)
	require.NoError(t, e.mm.Release([]sps.Addr{base}))
	_, ok = jitsyms.Lookup(uint64(base))
	assert.False(t, ok, "the released code's name is gone")
}
