//go:build cgo

package dylib_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/cbuild"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/svctest"
	"github.com/orcgo/orcrt/service/dylib"
	"github.com/orcgo/orcrt/sps"
)

// harness23 is a Manager installed on a Session speaking LLVM 23.
func harness23(t *testing.T) *svctest.Harness {
	return svctest.New(t, func(s *rt.Session, syms *rt.SymbolTable) error {
		s.SetDialect(dialect.LLVM23)
		return dylib.New().Install(s, syms)
	})
}

// TestResolveEitherForm: under LLVM 23's dialect one resolve wrapper
// answers LLVM 22's (Handle, Set) with Optional<ExecutorSymbolDef>s and
// LLVM 23's (Instance, Handle, Set) with Optional<ExecutorAddr>s, the same
// symbols by the same rules; the NativeDylibManager names are the same
// instance, a load without mode, and the 23 form.
func TestResolveEitherForm(t *testing.T) {
	h := harness23(t)
	inst := h.Addr(dylib.InstanceName)
	assert.Equal(t, inst, h.Addr(dylib.NativeInstanceName))

	src, answer, _ := testLib()
	so := cbuild.SharedObject(t, "orcrtdylib23", src)
	open := func(name, path string) sps.Addr {
		t.Helper()
		var args []byte
		if name == dylib.OpenWrapperName {
			args = sps.DylibManagerOpen.AppendArgs(nil, inst, path, 0)
		} else {
			args = sps.NativeDylibManagerLoad.AppendArgs(nil, inst, path)
		}
		r := h.CallName(name, args)
		v, err := sps.Unmarshal(sps.DylibManagerOpen.Ret, r.Bytes())
		require.NoError(t, err)
		require.NoError(t, v.Err)
		require.NotEqual(t, inst, v.Value, "a handle equal to the instance")
		return v.Value
	}
	set := []sps.LookupElement{
		{Name: []byte(answer), Required: true},
		{Name: []byte("orcrt_dylib23_missing"), Required: true},
		{Name: []byte("orcrt_dylib23_missing_weak")},
	}
	for _, opener := range []string{dylib.OpenWrapperName, dylib.NativeLoadName} {
		hnd := open(opener, so)

		r := h.CallName(dylib.ResolveWrapperName, sps.DylibManagerResolve.AppendArgs(nil, hnd, set))
		defs, err := sps.Unmarshal(sps.DylibManagerResolve.Ret, r.Bytes())
		require.NoError(t, err, "22 form")
		require.NoError(t, defs.Err)
		require.Len(t, defs.Value, 3)
		require.True(t, defs.Value[0].OK)
		assert.Equal(t, sps.Option[sps.SymbolDef]{}, defs.Value[1])
		assert.Equal(t, sps.Some(sps.SymbolDef{Flags: dylib.ExportedFlags}), defs.Value[2])
		assert.Len(t, r.Bytes(), 1+8+(1+8+2)+1+(1+8+2), "22: 11 bytes a present symbol")

		want := []sps.Option[sps.Addr]{sps.Some(defs.Value[0].Value.Addr), {}, sps.Some[sps.Addr](0)}
		for _, name := range []string{dylib.ResolveWrapperName, dylib.NativeLookupName} {
			r := h.CallName(name, sps.DylibManagerResolveAddrs.AppendArgs(nil, inst, hnd, set))
			addrs, err := sps.Unmarshal(sps.DylibManagerResolveAddrs.Ret, r.Bytes())
			require.NoError(t, err, "23 form of %s", name)
			require.NoError(t, addrs.Err)
			assert.Equal(t, want, addrs.Value, name)
			assert.Len(t, r.Bytes(), 1+8+(1+8)+1+(1+8), "23: 9 bytes a present symbol")
		}
	}

	// An unknown handle in either form is an error naming it.
	r := h.CallName(dylib.ResolveWrapperName, sps.DylibManagerResolve.AppendArgs(nil, 0x1234, set))
	defs, err := sps.Unmarshal(sps.DylibManagerResolve.Ret, r.Bytes())
	require.NoError(t, err)
	assert.EqualError(t, defs.Err, "dylib: resolve: unknown handle 0x1234 (not returned by open)")
	r = h.CallName(dylib.ResolveWrapperName, sps.DylibManagerResolveAddrs.AppendArgs(nil, inst, 0x1234, set))
	addrs, err := sps.Unmarshal(sps.DylibManagerResolveAddrs.Ret, r.Bytes())
	require.NoError(t, err)
	assert.EqualError(t, addrs.Err, "dylib: resolve: unknown handle 0x1234 (not returned by open)")
	// The instance alone, or cut short, is undecodable in the 23 form.
	for _, args := range [][]byte{sps.AppendAddr(nil, inst), sps.DylibManagerResolveAddrs.AppendArgs(nil, inst, 0x1234, set)[:20]} {
		msg, oob := h.CallName(dylib.ResolveWrapperName, args).OutOfBandError()
		assert.True(t, oob)
		assert.Equal(t, dialect.LLVM23.DeserializeArgs, msg)
	}
}
