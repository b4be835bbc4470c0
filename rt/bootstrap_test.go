package rt

import (
	"encoding/binary"
	"errors"
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/sps"
)

// ---- BootstrapInfoTest ----

func TestBootstrapInfo_ExplicitConstruction(t *testing.T) {
	s := newDirect(t)
	bi := NewBootstrapInfo(s, nil, nil)
	assert.Same(t, s, bi.Session())
	assert.Equal(t, 0, bi.Symbols.Len())
	assert.Empty(t, bi.Values)
}

func TestBootstrapInfo_ExplicitConstructionWithSymbolsAndValues(t *testing.T) {
	s := newDirect(t)
	syms := NewSymbolTable()
	require.NoError(t, syms.Add("foo", 0x10))
	bi := NewBootstrapInfo(s, syms, map[string][]byte{"k": {1}})
	a, ok := bi.Symbols.Lookup("foo")
	assert.True(t, ok)
	assert.EqualValues(t, 0x10, a)
	assert.Equal(t, []byte{1}, bi.Values["k"])
}

func TestBootstrapInfo_ProcessInfoDelegates(t *testing.T) {
	s := newDirect(t)
	assert.Equal(t, s.ProcessInfo(), NewBootstrapInfo(s, nil, nil).ProcessInfo())
}

func TestBootstrapInfo_CreateDefaultSucceeds(t *testing.T) {
	s := newDirect(t)
	bi, err := DefaultBootstrapInfo(s, nil, nil)
	require.NoError(t, err)
	require.NotNil(t, bi)
}

func TestBootstrapInfo_CreateDefaultContainsSessionSymbol(t *testing.T) {
	s := newDirect(t)
	bi, err := DefaultBootstrapInfo(s, nil, nil)
	require.NoError(t, err)
	a, ok := bi.Symbols.Lookup(CName(SessionInstanceSymbol))
	require.True(t, ok)
	assert.Equal(t, s.InstanceAddr(), a)
	self, err := InstanceAt[*Session](s, a)
	require.NoError(t, err)
	assert.Same(t, s, self)
}

// addInterface is a symbols builder like sps_ci::addAll: it registers a
// wrapper and publishes it.
func addInterface(s *Session, st *SymbolTable) error {
	return st.Add(CName("orc_rt_ci_sps_test_add"), s.RegisterWrapper(Handle2(addSig, addHandler)))
}

func TestBootstrapInfo_CreateDefaultContainsSPSCISymbols(t *testing.T) {
	s := newDirect(t)
	bi, err := DefaultBootstrapInfo(s, addInterface, nil)
	require.NoError(t, err)
	a, ok := bi.Symbols.Lookup(CName("orc_rt_ci_sps_test_add"))
	require.True(t, ok)
	_, ok = s.LookupWrapper(a)
	assert.True(t, ok)
}

func TestBootstrapInfo_CreateDefaultWithNoSymbolsBuilder(t *testing.T) {
	s := newDirect(t)
	bi, err := DefaultBootstrapInfo(s, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, bi.Symbols.Len(), "only the session symbol")
}

func TestBootstrapInfo_CreateDefaultWithCustomValuesBuilder(t *testing.T) {
	s := newDirect(t)
	bi, err := DefaultBootstrapInfo(s, nil, func(_ *Session, v map[string][]byte) error {
		v["custom"] = []byte("value")
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, "value", string(bi.Values["custom"]))
}

func TestBootstrapInfo_CreateDefaultSymbolsBuilderError(t *testing.T) {
	s := newDirect(t)
	_, err := DefaultBootstrapInfo(s, func(*Session, *SymbolTable) error { return errors.New("symbols failed") }, nil)
	assert.EqualError(t, err, "symbols failed")
}

func TestBootstrapInfo_CreateDefaultValuesBuilderError(t *testing.T) {
	s := newDirect(t)
	_, err := DefaultBootstrapInfo(s, nil, func(*Session, map[string][]byte) error { return errors.New("values failed") })
	assert.EqualError(t, err, "values failed")
}

func TestBootstrapInfo_MutableSymbolsAndValues(t *testing.T) {
	s := newDirect(t)
	bi := NewBootstrapInfo(s, nil, nil)
	require.NoError(t, bi.Symbols.Add("later", 0x20))
	bi.Values["later"] = []byte("v")
	assert.Equal(t, 1, bi.Symbols.Count("later"))
	assert.Equal(t, "v", string(bi.Values["later"]))
}

func TestBootstrapInfo_CreateDefaultContainsSubtargetFeatures(t *testing.T) {
	s := newDirect(t)
	bi, err := DefaultBootstrapInfo(s, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, s.ProcessInfo().CPUFeatures(), string(bi.Values[SubtargetFeaturesKey]))
}

func TestBootstrapInfo_SetupInfoIsSortedAndEncodes(t *testing.T) {
	s := newDirect(t)
	syms := NewSymbolTable()
	require.NoError(t, syms.AddUnique(Symbol{"b", 2}, Symbol{"a", 1}))
	bi := NewBootstrapInfo(s, syms, map[string][]byte{"y": {2}, "x": {1}})
	si := bi.SetupInfo()
	assert.Equal(t, "arm64-apple-darwin", si.Triple)
	assert.EqualValues(t, 16384, si.PageSize)
	assert.Equal(t, []sps.BootstrapSymbol{{Name: "a", Addr: 1}, {Name: "b", Addr: 2}}, si.Symbols)
	assert.Equal(t, []sps.BootstrapValue{{Name: "x", Value: []byte{1}}, {Name: "y", Value: []byte{2}}}, si.Values)
	back, err := sps.Unmarshal(sps.SetupInfoCodec, sps.Marshal(sps.SetupInfoCodec, si))
	require.NoError(t, err)
	assert.Equal(t, si, back)
}

// ---- ExecutorProcessInfoTest ----

func TestExecutorProcessInfo_DetectSucceeds(t *testing.T) {
	pi, err := DetectProcessInfo()
	require.NoError(t, err)
	assert.NotEmpty(t, pi.TargetTriple())
}

func TestExecutorProcessInfo_DetectPageSizeIsPowerOfTwo(t *testing.T) {
	pi, err := DetectProcessInfo()
	require.NoError(t, err)
	ps := pi.PageSize()
	assert.NotZero(t, ps)
	assert.Zero(t, ps&(ps-1))
}

func TestExecutorProcessInfo_DetectPageSizeAtLeast4096(t *testing.T) {
	pi, err := DetectProcessInfo()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, pi.PageSize(), uint64(4096))
}

// DetectPageSizeMatchesSystem compares with the kernel's AT_PAGESZ from
// the auxiliary vector, a source independent of os.Getpagesize.
func TestExecutorProcessInfo_DetectPageSizeMatchesSystem(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/auxv")
	}
	auxv, err := os.ReadFile("/proc/self/auxv")
	require.NoError(t, err)
	const atPagesz = 6
	var sys uint64
	for i := 0; i+16 <= len(auxv); i += 16 {
		if binary.NativeEndian.Uint64(auxv[i:]) == atPagesz {
			sys = binary.NativeEndian.Uint64(auxv[i+8:])
		}
	}
	require.NotZero(t, sys, "AT_PAGESZ not found")
	pi, err := DetectProcessInfo()
	require.NoError(t, err)
	assert.Equal(t, sys, pi.PageSize())
}

func TestExecutorProcessInfo_ConstructWithExplicitValues(t *testing.T) {
	pi, err := NewProcessInfo("arm64-apple-darwin", 16384, "+neon, +fullfp16")
	require.NoError(t, err)
	assert.Equal(t, "arm64-apple-darwin", pi.TargetTriple())
	assert.EqualValues(t, 16384, pi.PageSize())
	assert.Equal(t, "+neon, +fullfp16", pi.CPUFeatures())
}

func TestExecutorProcessInfo_RejectsInvalid(t *testing.T) {
	_, err := NewProcessInfo("", 4096, "")
	assert.EqualError(t, err, "rt: process info: empty target triple")
	for _, ps := range []uint64{0, 3, 4097, 12288} {
		_, err = NewProcessInfo("x86_64-pc-linux-gnu", ps, "")
		assert.Error(t, err, "page size %d", ps)
	}
}

func TestExecutorProcessInfo_Triples(t *testing.T) {
	for _, tc := range []struct{ goos, goarch, want string }{
		{"linux", "amd64", "x86_64-pc-linux-gnu"},
		{"linux", "arm64", "aarch64-unknown-linux-gnu"},
		{"darwin", "arm64", "arm64-apple-darwin"},
	} {
		got, err := hostTriple(tc.goos, tc.goarch)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got)
	}
	_, err := hostTriple("plan9", "386")
	assert.EqualError(t, err, "rt: no LLVM target triple known for plan9/386")
	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
		pi, err := DetectProcessInfo()
		require.NoError(t, err)
		assert.Equal(t, "x86_64-pc-linux-gnu", pi.TargetTriple(), "exactly as the stock executor")
	}
}

func TestExecutorProcessInfo_WithFeatures(t *testing.T) {
	pi, err := DetectProcessInfo()
	require.NoError(t, err)
	assert.Empty(t, pi.CPUFeatures(), "the stock executor sends no features")
	assert.Equal(t, "+sse2", pi.WithFeatures("+sse2").CPUFeatures())
	assert.Empty(t, pi.CPUFeatures(), "a value")
}

// ---- SimpleSymbolTableTest ----

func TestSimpleSymbolTable_EmptyByDefault(t *testing.T) {
	var st SymbolTable
	assert.Equal(t, 0, st.Len())
	assert.Equal(t, 0, st.Count("x"))
	assert.Empty(t, st.Symbols())
}

func TestSimpleSymbolTable_AddSymbolsUnique(t *testing.T) {
	st := NewSymbolTable()
	require.NoError(t, st.AddUnique(Symbol{"foo", 1}, Symbol{"bar", 2}))
	a, ok := st.Lookup("foo")
	assert.True(t, ok)
	assert.EqualValues(t, 1, a)
	assert.Equal(t, 1, st.Count("bar"))
}

// AddConstPointers: C++ const-pointer overloads have no Go counterpart;
// the Go analogue is publishing addresses of registered Go objects.
func TestSimpleSymbolTable_AddConstPointers(t *testing.T) {
	s := newDirect(t)
	st := NewSymbolTable()
	inst := s.RegisterInstance(&counterObj{})
	require.NoError(t, st.Add("instance", inst))
	a, _ := st.Lookup("instance")
	assert.Equal(t, inst, a)
}

func TestSimpleSymbolTable_AddSymbolsUniqueMultipleCalls(t *testing.T) {
	st := NewSymbolTable()
	require.NoError(t, st.Add("a", 1))
	require.NoError(t, st.Add("b", 2))
	assert.Equal(t, 2, st.Len())
}

func TestSimpleSymbolTable_AddSymbolsUniqueDuplicateRejected(t *testing.T) {
	st := NewSymbolTable()
	require.NoError(t, st.Add("foo", 1))
	err := st.Add("foo", 2)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"foo"`)
	a, _ := st.Lookup("foo")
	assert.EqualValues(t, 1, a, "the original is not overwritten")
}

func TestSimpleSymbolTable_AddSymbolsUniqueMultipleDuplicates(t *testing.T) {
	st := NewSymbolTable()
	require.NoError(t, st.AddUnique(Symbol{"a", 1}, Symbol{"b", 2}))
	err := st.AddUnique(Symbol{"a", 10}, Symbol{"b", 20}, Symbol{"c", 30})
	var dup *DuplicateSymbolError
	require.ErrorAs(t, err, &dup)
	assert.Equal(t, []SymbolConflict{{"a", 1, 10}, {"b", 2, 20}}, dup.Conflicts)
	assert.Equal(t, `rt: duplicate symbol definitions: "a" (existing 0x1, new 0xa), "b" (existing 0x2, new 0x14)`, err.Error())
}

func TestSimpleSymbolTable_AddSymbolsUniqueAllOrNothing(t *testing.T) {
	st := NewSymbolTable()
	require.NoError(t, st.Add("old", 1))
	require.Error(t, st.AddUnique(Symbol{"new", 2}, Symbol{"old", 3}))
	assert.Equal(t, 0, st.Count("new"))
	// A conflict within one batch also fails.
	require.Error(t, st.AddUnique(Symbol{"x", 1}, Symbol{"x", 2}))
	assert.Equal(t, 0, st.Count("x"))
}

func TestSimpleSymbolTable_AddUniqueSameAddressSucceeds(t *testing.T) {
	st := NewSymbolTable()
	require.NoError(t, st.Add("foo", 1))
	require.NoError(t, st.Add("foo", 1))
	require.NoError(t, st.AddUnique(Symbol{"bar", 5}, Symbol{"bar", 5}))
	assert.Equal(t, 2, st.Len())
}

func TestSimpleSymbolTable_Iteration(t *testing.T) {
	st := NewSymbolTable()
	require.NoError(t, st.AddUnique(Symbol{"c", 3}, Symbol{"a", 1}, Symbol{"b", 2}))
	var names []string
	var sum sps.Addr
	for n, a := range st.All() {
		names = append(names, n)
		sum += a
	}
	assert.Equal(t, []string{"a", "b", "c"}, names)
	assert.EqualValues(t, 6, sum)
	for range st.All() {
		break // early exit is honoured
	}
	other := NewSymbolTable()
	require.NoError(t, other.Merge(st))
	assert.Equal(t, st.Symbols(), other.Symbols())
}

func TestCName(t *testing.T) {
	if runtime.GOOS == "darwin" {
		assert.Equal(t, "_foo", CName("foo"))
	} else {
		assert.Equal(t, "foo", CName("foo"))
	}
}

// TestBootstrapInfo_SetupPayloadKeptWhileUnchanged: SetupPayload is the
// dialect's encoding of SetupInfo, returned again (the same bytes) while
// nothing changes, and encoded anew after a change to the symbols, the
// values (also in place) or the dialect.
func TestBootstrapInfo_SetupPayloadKeptWhileUnchanged(t *testing.T) {
	s := newDirect(t)
	bi, err := DefaultBootstrapInfo(s, nil, nil)
	require.NoError(t, err)
	bi.Values["k"] = []byte{1}
	encode := func() []byte {
		c := s.Dialect().SetupCodec()
		info := bi.SetupInfo()
		return c.Append(nil, info)
	}
	first := bi.SetupPayload()
	assert.Equal(t, encode(), first)
	assert.Same(t, &first[0], &bi.SetupPayload()[0], "unchanged: the kept payload")

	for _, change := range []struct {
		name string
		do   func()
	}{
		{"symbol added", func() { require.NoError(t, bi.Symbols.Add("new", 0x20)) }},
		{"value added", func() { bi.Values["k2"] = []byte{2} }},
		{"value set in place", func() { bi.Values["k"][0] = 9 }},
		{"value deleted", func() { delete(bi.Values, "k2") }},
		{"dialect changed", func() { s.SetDialect(dialect.LLVM14) }},
	} {
		before := bi.SetupPayload()
		change.do()
		after := bi.SetupPayload()
		assert.Equal(t, encode(), after, change.name)
		assert.NotSame(t, &before[0], &after[0], change.name)
	}
}
