//go:build cgo

package entry_test

import (
	"encoding/binary"
	"encoding/hex"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/orcgo/orcrt/internal/cmem"
	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/svctest"
	"github.com/orcgo/orcrt/service/entry"
	"github.com/orcgo/orcrt/sps"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func install(s *rt.Session, syms *rt.SymbolTable) error {
	s.SetUnknownTargetHandler(entry.CallJITWrapper)
	return entry.Install(s, syms)
}

func libc(t testing.TB, name string) uint64 {
	t.Helper()
	h, err := native.Dlopen("", native.RTLD_LAZY)
	require.NoError(t, err)
	a, err := native.Dlsym(h, name)
	require.NoError(t, err)
	return uint64(a)
}

func le64(v uint64) string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	return hex.EncodeToString(b[:])
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// TestProbe1 replays the run-wrapper probes of the stock-executor probes
// (abs and getpid as stand-ins for JIT'd functions).
func TestProbe1(t *testing.T) {
	h := svctest.New(t, install)
	abs, getpid := le64(libc(t, "abs")), le64(libc(t, "getpid"))

	// run_as_int_function(abs, -77) -> int32 77
	r := h.CallName(entry.RunAsIntFunctionName, unhex(t, abs+"b3ffffff"))
	assert.Equal(t, "4d000000", hex.EncodeToString(r.Bytes()))
	// run_as_void_function(getpid) -> our pid
	r = h.CallName(entry.RunAsVoidFunctionName, unhex(t, getpid))
	var pid [4]byte
	binary.LittleEndian.PutUint32(pid[:], uint32(os.Getpid()))
	assert.Equal(t, hex.EncodeToString(pid[:]), hex.EncodeToString(r.Bytes()))
	// run_as_main(abs as 'main', ['p','x','y']) -> int64 3: argc = number
	// of Args, no program name prepended.
	r = h.CallName(entry.RunAsMainName, unhex(t, abs+"0300000000000000010000000000000070010000000000000078010000000000000079"))
	assert.Equal(t, "0300000000000000", hex.EncodeToString(r.Bytes()))
}

func TestRunWrappers(t *testing.T) {
	h := svctest.New(t, install)
	lib := svctest.JITLib(t)
	main := sps.Addr(lib("orcrt_test_main"))

	run := func(args []string) int64 {
		t.Helper()
		r := h.CallName(entry.RunAsMainName, sps.RunAsMain.AppendArgs(nil, main, args))
		v, err := sps.Unmarshal(sps.RunAsMain.Ret, r.Bytes())
		require.NoError(t, err)
		return v
	}
	assert.Equal(t, int64(1000), run(nil), "argc 0, argv[0] == NULL")
	assert.Equal(t, int64(1000+1+2+3), run([]string{"a", "bb", "ccc"}))
	assert.Equal(t, int64(1000+2), run([]string{"ab\x00cd"}), "C strings stop at NUL")

	// The int result is sign-extended to i64.
	neg := sps.Addr(lib("orcrt_test_neg"))
	r := h.CallName(entry.RunAsIntFunctionName, sps.RunAsIntFunction.AppendArgs(nil, neg, 5))
	assert.Equal(t, "fbffffff", hex.EncodeToString(r.Bytes()))
	r = h.CallName(entry.RunAsMainName, sps.RunAsMain.AppendArgs(nil, neg, make([]string, 3)))
	assert.Equal(t, "fdffffffffffffff", hex.EncodeToString(r.Bytes()), "main returning -3")
	r = h.CallName(entry.RunAsVoidFunctionName, sps.RunAsVoidFunction.AppendArgs(nil, sps.Addr(lib("orcrt_test_seven"))))
	assert.Equal(t, "07000000", hex.EncodeToString(r.Bytes()))
}

func TestBadArguments(t *testing.T) {
	h := svctest.New(t, install)
	for _, name := range []string{entry.RunAsMainName, entry.RunAsVoidFunctionName, entry.RunAsIntFunctionName} {
		// Undecodable: out-of-band (an empty Result on the wire).
		for _, args := range [][]byte{nil, {1, 2, 3}} {
			assert.True(t, h.CallName(name, args).IsOutOfBandError(), name)
		}
		// Address 0 is refused instead of crashing.
		args := make([]byte, 8)
		if name == entry.RunAsMainName {
			args = make([]byte, 16)
		} else if name == entry.RunAsIntFunctionName {
			args = make([]byte, 12)
		}
		msg, oob := h.CallName(name, args).OutOfBandError()
		assert.True(t, oob, name)
		assert.Contains(t, msg, "address 0")
	}
	// run_as_main with an absurd argument count.
	bad := append(make([]byte, 8), sps.AppendU64(nil, 1<<40)...)
	assert.True(t, h.CallName(entry.RunAsMainName, bad).IsOutOfBandError())
}

func TestCallJITWrapper(t *testing.T) {
	h := svctest.New(t, install)
	lib := svctest.JITLib(t)
	echo := sps.Addr(lib("orcrt_test_echo"))
	for _, n := range []int{0, 1, 8, 9, 255, 256, 257, 100000} {
		args := make([]byte, n)
		for i := range args {
			args[i] = byte(i*7 + 1)
		}
		r := h.Call(echo, append([]byte(nil), args...))
		require.False(t, r.IsOutOfBandError())
		assert.Equal(t, args, append([]byte{}, r.Bytes()...), "n=%d", n)
		if n == 0 {
			assert.True(t, r.Empty())
		}
	}
	// An out-of-band error of JIT'd code keeps its message.
	msg, oob := h.Call(sps.Addr(lib("orcrt_test_oob")), []byte("it broke")).OutOfBandError()
	assert.True(t, oob)
	assert.Equal(t, "it broke", msg)
	// Address 0.
	assert.True(t, h.Call(0, nil).IsOutOfBandError())
}

func BenchmarkCallJITWrapper(b *testing.B) {
	h := svctest.New(b, install)
	lib := svctest.JITLib(b)
	echo := sps.Addr(lib("orcrt_test_echo"))
	var res rt.WrapperResult
	ret := func(r rt.WrapperResult) { res = r }
	for _, n := range []int{8, 64, 4096} {
		args := make([]byte, n)
		b.Run("impl=direct/size="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(n))
			for b.Loop() {
				entry.CallJITWrapper(h.S, echo, args, ret)
			}
		})
	}
	_ = res
	b.Run("impl=empty-cgo-call-reference", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			cmem.CallEmpty()
		}
	})
}
