//go:build cgo

package dylib_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/orcgo/orcrt/internal/cbuild"
	"github.com/orcgo/orcrt/internal/cmem"
	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/svctest"
	"github.com/orcgo/orcrt/service/dylib"
	"github.com/orcgo/orcrt/sps"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testLib returns the source of a test library whose symbols are named
// uniquely per call: libraries opened RTLD_GLOBAL stay loaded, and the
// process handle would find an earlier run's (go test -count=N).
func testLib() (src, answer, data string) {
	n := libSeq.Add(1)
	answer = fmt.Sprintf("orcrt_dylib_test_answer_%d", n)
	data = fmt.Sprintf("orcrt_dylib_test_data_%d", n)
	return fmt.Sprintf("int %s(void) { return 42; }\nint %s = 7;\n", answer, data), answer, data
}

var libSeq atomic.Int64

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// withAddr replaces the first 8 bytes of a captured payload (the stock
// instance or handle) with a.
func withAddr(b []byte, a sps.Addr) []byte {
	binary.LittleEndian.PutUint64(b, uint64(a))
	return b
}

func harness(t *testing.T) (*svctest.Harness, *dylib.Manager) {
	m := dylib.New()
	h := svctest.New(t, m.Install)
	return h, m
}

func processSym(t testing.TB, name string) sps.Addr {
	t.Helper()
	dl, err := native.Dlopen("", native.RTLD_LAZY)
	require.NoError(t, err)
	a, err := native.Dlsym(dl, name)
	require.NoError(t, err)
	return sps.Addr(a)
}

// TestProbe1 replays every dylib request of stock-executor Probe 1
// and compares the response bytes (with our addresses substituted).
func TestProbe1(t *testing.T) {
	h, _ := harness(t)
	inst := h.Addr(dylib.InstanceName)
	open := func(req string) rt.WrapperResult {
		return h.CallName(dylib.OpenWrapperName, withAddr(unhex(t, req), inst))
	}

	// open('/nonexistent/libx.so', 0) -> Expected error (dlerror text).
	r := open("e04e2b8adc55000014000000000000002f6e6f6e6578697374656e742f6c6962782e736f0000000000000000")
	assert.Equal(t, "004f000000000000002f6e6f6e6578697374656e742f6c6962782e736f3a2063616e6e6f74206f70656e20736861726564206f626a6563742066696c653a204e6f20737563682066696c65206f72206469726563746f7279",
		hex.EncodeToString(r.Bytes()))

	// open('', 1) -> 'open: non-zero mode bits not yet supported'.
	r = open("e04e2b8adc55000000000000000000000100000000000000")
	assert.Equal(t, "002a000000000000006f70656e3a206e6f6e2d7a65726f206d6f64652062697473206e6f742079657420737570706f72746564",
		hex.EncodeToString(r.Bytes()))

	// open('', 0) twice -> two distinct non-zero handles.
	r1 := open("e04e2b8adc55000000000000000000000000000000000000").Bytes()
	r2 := open("e04e2b8adc55000000000000000000000000000000000000").Bytes()
	require.Len(t, r1, 9)
	require.Len(t, r2, 9)
	assert.Equal(t, byte(1), r1[0])
	assert.Equal(t, byte(1), r2[0])
	hnd := sps.Addr(binary.LittleEndian.Uint64(r1[1:]))
	hnd2 := sps.Addr(binary.LittleEndian.Uint64(r2[1:]))
	assert.NotZero(t, hnd)
	assert.NotEqual(t, hnd, hnd2)

	// resolve(h, [printf:Required, no_such_sym_xyz:Required,
	// no_such_sym_xyz:Weak, '':Weak]) -> [Some{printf}, None, Some{0}, None].
	r = h.CallName(dylib.ResolveWrapperName, withAddr(unhex(t,
		"100e0084957f0000040000000000000006000000000000007072696e7466010f000000000000006e6f5f737563685f73796d5f78797a010f000000000000006e6f5f737563685f73796d5f78797a00000000000000000000"), hnd))
	want := unhex(t, "01040000000000000001b005c791957f0000100000010000000000000000100000")
	binary.LittleEndian.PutUint64(want[10:], uint64(processSym(t, "printf")))
	assert.Equal(t, hex.EncodeToString(want), hex.EncodeToString(r.Bytes()))

	// resolve(h, []) -> success, empty sequence.
	r = h.CallName(dylib.ResolveWrapperName, withAddr(unhex(t, "100e0084957f00000000000000000000"), hnd2))
	assert.Equal(t, "010000000000000000", hex.EncodeToString(r.Bytes()))
}

func TestWireErrors(t *testing.T) {
	h, _ := harness(t)
	inst := h.Addr(dylib.InstanceName)

	// Undecodable arguments -> out-of-band error (an empty Result on the
	// LLVM 22 wire).
	for _, name := range []string{dylib.OpenWrapperName, dylib.ResolveWrapperName} {
		for _, args := range [][]byte{nil, {1, 2, 3}, withAddr(make([]byte, 12), inst)} {
			r := h.CallName(name, args)
			assert.True(t, r.IsOutOfBandError(), "%s(%x)", name, args)
		}
	}
	// open with an instance that is not the manager's.
	r := h.CallName(dylib.OpenWrapperName, sps.DylibManagerOpen.AppendArgs(nil, inst+8, "", 0))
	assert.True(t, r.IsOutOfBandError())

	// resolve with an unknown handle -> Expected error naming it.
	r = h.CallName(dylib.ResolveWrapperName, sps.DylibManagerResolve.AppendArgs(nil, 0x1234, nil))
	v, err := sps.Unmarshal(sps.DylibManagerResolve.Ret, r.Bytes())
	require.NoError(t, err)
	require.Error(t, v.Err)
	assert.Equal(t, "dylib: resolve: unknown handle 0x1234 (not returned by open)", v.Err.Error())

	// resolve of a required empty name -> the whole call fails.
	hnd, err := dylib.New().Open("", 0) // a handle of another manager is unknown here too
	require.NoError(t, err)
	r = h.CallName(dylib.ResolveWrapperName, sps.DylibManagerResolve.AppendArgs(nil, hnd, nil))
	v, err = sps.Unmarshal(sps.DylibManagerResolve.Ret, r.Bytes())
	require.NoError(t, err)
	assert.Error(t, v.Err)

	r = h.CallName(dylib.OpenWrapperName, sps.DylibManagerOpen.AppendArgs(nil, inst, "", 0))
	ov, err := sps.Unmarshal(sps.DylibManagerOpen.Ret, r.Bytes())
	require.NoError(t, err)
	require.NoError(t, ov.Err)
	r = h.CallName(dylib.ResolveWrapperName, sps.DylibManagerResolve.AppendArgs(nil, ov.Value,
		[]sps.LookupElement{{Name: []byte("printf")}, {Name: nil, Required: true}}))
	v, err = sps.Unmarshal(sps.DylibManagerResolve.Ret, r.Bytes())
	require.NoError(t, err)
	require.Error(t, v.Err)
	assert.Equal(t, `Required address for empty symbol ""`, v.Err.Error())
}

func TestOpenSharedObject(t *testing.T) {
	src, answer, data := testLib()
	so := cbuild.SharedObject(t, "orcrtdylibtest", src)
	m := dylib.New()
	hnd, err := m.Open(so, 0)
	require.NoError(t, err)
	res, err := m.Resolve(hnd, []sps.LookupElement{
		{Name: []byte(answer), Required: true},
		{Name: []byte(data)},
		{Name: []byte("printf")}, // a dependency's symbol: dlsym(handle) searches them too
		{Name: []byte("orcrt_dylib_test_missing"), Required: true},
		{Name: []byte(answer + "\x00junk"), Required: true}, // looked up up to the NUL
	})
	require.NoError(t, err)
	require.Len(t, res, 5)
	for _, i := range []int{0, 1, 2, 4} {
		assert.True(t, res[i].OK, "entry %d", i)
		assert.Equal(t, dylib.ExportedFlags, res[i].Value.Flags)
	}
	assert.False(t, res[3].OK)
	assert.Equal(t, res[0].Value.Addr, res[4].Value.Addr)

	got, err := native.CallIntVoid(uintptr(res[0].Value.Addr))
	require.NoError(t, err)
	assert.Equal(t, int32(42), got)
	assert.Equal(t, byte(7), cmem.Bytes(uintptr(res[1].Value.Addr), 4)[0])

	// The library was opened RTLD_GLOBAL: the process handle sees it now.
	ph, err := m.Open("", 0)
	require.NoError(t, err)
	res2, err := m.Resolve(ph, []sps.LookupElement{{Name: []byte(answer), Required: true}})
	require.NoError(t, err)
	assert.Equal(t, res[0], res2[0])

	// Reopening gives a fresh handle to the same library.
	hnd2, err := m.Open(so, 0)
	require.NoError(t, err)
	assert.NotEqual(t, hnd, hnd2)
	assert.Equal(t, 3, m.Handles())

	_, err = m.Open(so+".nope", 0)
	assert.EqualError(t, err, so+".nope: cannot open shared object file: No such file or directory")
	_, err = m.Open("", 2)
	assert.EqualError(t, err, dylib.MsgModeNotSupported)

	done := false
	m.OnShutdown(func() { done = true })
	assert.True(t, done)
	_, err = m.Resolve(hnd, nil)
	assert.ErrorIs(t, err, dylib.ErrShutDown)
	_, err = m.Open("", 0)
	assert.ErrorIs(t, err, dylib.ErrShutDown)
}

func TestResolveRules(t *testing.T) {
	m := dylib.New()
	ph, err := m.Open("", 0)
	require.NoError(t, err)
	tests := []struct {
		name     string
		required bool
		want     sps.Option[sps.SymbolDef]
	}{
		{"malloc", true, sps.Some(sps.SymbolDef{Addr: processSym(t, "malloc"), Flags: dylib.ExportedFlags})},
		{"malloc", false, sps.Some(sps.SymbolDef{Addr: processSym(t, "malloc"), Flags: dylib.ExportedFlags})},
		{"__llvm_orc_SimpleRemoteEPC_dispatch_fn", false, sps.Some(sps.SymbolDef{Addr: sps.Addr(native.DispatchFnAddr()), Flags: dylib.ExportedFlags})},
		{"no_such_symbol_orcrt", true, sps.Option[sps.SymbolDef]{}},
		{"no_such_symbol_orcrt", false, sps.Some(sps.SymbolDef{Flags: dylib.ExportedFlags})},
		{"", false, sps.Option[sps.SymbolDef]{}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/required=%v", tc.name, tc.required), func(t *testing.T) {
			res, err := m.Resolve(ph, []sps.LookupElement{{Name: []byte(tc.name), Required: tc.required}})
			require.NoError(t, err)
			assert.Equal(t, []sps.Option[sps.SymbolDef]{tc.want}, res)
		})
	}
}

func TestConcurrentOpenResolve(t *testing.T) {
	m := dylib.New()
	var wg sync.WaitGroup
	seen := sync.Map{}
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				hnd, err := m.Open("", 0)
				if err != nil {
					t.Error(err)
					return
				}
				if _, dup := seen.LoadOrStore(hnd, true); dup {
					t.Errorf("handle %#x handed out twice", hnd)
				}
				res, err := m.Resolve(hnd, []sps.LookupElement{{Name: []byte("free"), Required: true}})
				if err != nil || len(res) != 1 || !res[0].OK || res[0].Value.Addr == 0 {
					t.Errorf("resolve free: %v %v", res, err)
				}
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, 1600, m.Handles())
}

func BenchmarkResolve(b *testing.B) {
	m := dylib.New()
	ph, err := m.Open("", 0)
	require.NoError(b, err)
	for _, n := range []int{1, 16, 64} {
		set := make([]sps.LookupElement, n)
		names := []string{"malloc", "free", "printf", "memcpy", "strlen", "no_such_symbol_orcrt"}
		for i := range set {
			set[i] = sps.LookupElement{Name: []byte(names[i%len(names)])}
		}
		b.Run(fmt.Sprintf("impl=batch/symbols=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Resolve(ph, set); err != nil {
					b.Fatal(err)
				}
			}
		})
		// Reference: one cgo call per symbol through package native.
		dl, err := native.Dlopen("", native.RTLD_LAZY)
		require.NoError(b, err)
		b.Run(fmt.Sprintf("impl=native-dlsym-per-symbol/symbols=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, e := range set {
					_, _ = native.Dlsym(dl, string(e.Name))
				}
			}
		})
	}
}

// TestProcessSymbols: names added with AddProcessSymbol answer lookups in
// the process handle, ahead of dlsym (even a name libc defines), and only
// there; the lookups of older dialects see them too.
func TestProcessSymbols(t *testing.T) {
	src, answer, _ := testLib()
	so := cbuild.SharedObject(t, "orcrtdylibproc", src)
	m := dylib.New()
	require.NoError(t, m.AddProcessSymbol("orcrt_host_fn", 0x1234))
	require.NoError(t, m.AddProcessSymbol("printf", 0x5678))
	assert.Error(t, m.AddProcessSymbol("printf", 0x9))
	assert.Error(t, m.AddProcessSymbol("", 0x9))
	assert.Equal(t, map[string]sps.Addr{"orcrt_host_fn": 0x1234, "printf": 0x5678}, m.ProcessSymbols())

	self, err := m.Open("", 0)
	require.NoError(t, err)
	res, err := m.Resolve(self, []sps.LookupElement{
		{Name: []byte("orcrt_host_fn"), Required: true},
		{Name: []byte("printf")},
		{Name: []byte("malloc")},
		{Name: []byte("orcrt_no_such_symbol"), Required: true},
	})
	require.NoError(t, err)
	assert.Equal(t, sps.Some(sps.SymbolDef{Addr: 0x1234, Flags: dylib.ExportedFlags}), res[0])
	assert.Equal(t, sps.Addr(0x5678), res[1].Value.Addr, "ahead of libc's printf")
	assert.True(t, res[2].OK && res[2].Value.Addr != 0, "other names still go to dlsym")
	assert.False(t, res[3].OK)

	lib, err := m.Open(so, 0)
	require.NoError(t, err)
	res, err = m.Resolve(lib, []sps.LookupElement{{Name: []byte("orcrt_host_fn")}, {Name: []byte(answer)}})
	require.NoError(t, err)
	assert.Zero(t, res[0].Value.Addr, "process symbols are the process handle's only")
	assert.NotZero(t, res[1].Value.Addr)
}
