//go:build cgo && (amd64 || arm64)

package native

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/orcgo/orcrt/internal/cmem"
	"github.com/orcgo/orcrt/sps"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/orcgo/orcrt/slab"
)

// machineCode holds the test functions; code_<arch>_test.go fills it.
type machineCode struct {
	ret1, ret2, neg, echo, emptyret, mallocfill, dispatchtail, spawn, threadstart, main, recurse []byte
}

var testSlab *slab.Slab

func TestMain(m *testing.M) {
	var err error
	testSlab, err = slab.New(slab.Config{Size: 64 << 20})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := testSlab.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	if code == 0 {
		if n := slab.LiveSlabs(); n != 0 {
			fmt.Fprintf(os.Stderr, "native: %d slabs leaked\n", n)
			code = 1
		}
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// place copies code into a fresh slab region, makes it executable and
// returns its address; the region is released at the end of the test.
func place(t testing.TB, code []byte) uintptr {
	t.Helper()
	r, err := testSlab.Reserve(uintptr(len(code)))
	require.NoError(t, err)
	require.NoError(t, testSlab.Write(r.Base(), code, r.Size()))
	require.NoError(t, testSlab.Protect(r.Base(), r.Size(), slab.ProtRX))
	t.Cleanup(func() { require.NoError(t, testSlab.Release(r)) })
	return r.Base()
}

func words(ws ...uint64) []byte {
	var b []byte
	for _, w := range ws {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return b
}

func mustSym(t testing.TB, name string) uintptr {
	t.Helper()
	h, err := Dlopen("", RTLD_NOW)
	require.NoError(t, err)
	p, err := Dlsym(h, name)
	require.NoError(t, err)
	require.NotZero(t, p, name)
	return p
}

// TestRewriteSameBlock rewrites one block between "return 1" and "return
// 2" thousands of times, calling it after each rewrite, then reuses the
// released pages for the other function. On arm64 this is the test that
// catches a missing or wrong instruction-cache flush — but only on real
// hardware: QEMU user mode does not model caches.
func TestRewriteSameBlock(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 400
	}
	r, err := testSlab.Reserve(64)
	require.NoError(t, err)
	for i := range n {
		code, want := mc.ret1, int32(1)
		if i%2 == 1 {
			code, want = mc.ret2, 2
		}
		if i > 0 {
			require.NoError(t, testSlab.Protect(r.Base(), r.Size(), slab.ProtRW))
		}
		require.NoError(t, testSlab.Write(r.Base(), code, r.Size()))
		require.NoError(t, testSlab.Protect(r.Base(), r.Size(), slab.ProtRX))
		got, err := CallIntVoid(r.Base())
		require.NoError(t, err)
		if got != want {
			t.Fatalf("iteration %d: got %d, want %d (stale instructions)", i, got, want)
		}
	}
	// Free and reuse: the cache hands back the same pages for new code.
	base := r.Base()
	for i := range 200 {
		require.NoError(t, testSlab.Release(r))
		r, err = testSlab.Reserve(64)
		require.NoError(t, err)
		require.Equal(t, base, r.Base(), "freed block reused")
		code, want := mc.ret1, int32(1)
		if i%2 == 0 {
			code, want = mc.ret2, 2
		}
		require.NoError(t, testSlab.Write(r.Base(), code, r.Size()))
		require.NoError(t, testSlab.Protect(r.Base(), r.Size(), slab.ProtRX))
		got, err := CallIntVoid(r.Base())
		require.NoError(t, err)
		require.Equal(t, want, got, "reuse %d", i)
	}
	require.NoError(t, testSlab.Release(r))
}

// TestPackedBlocks calls functions packed into shared pages by a Packer,
// in both mapping modes.
func TestPackedBlocks(t *testing.T) {
	for _, dual := range []bool{false, true} {
		t.Run(fmt.Sprintf("dual=%t", dual), func(t *testing.T) {
			s, err := slab.New(slab.Config{Size: 16 << 20, DualMap: dual})
			require.NoError(t, err)
			defer func() { require.NoError(t, s.Close()) }()
			p, err := s.NewPacker(slab.ProtRX, 0)
			require.NoError(t, err)
			var blocks []slab.Block
			for i := range 20 {
				code := mc.ret1
				if i%2 == 1 {
					code = mc.ret2
				}
				b, err := p.Alloc(uintptr(len(code)), 16)
				require.NoError(t, err)
				require.NoError(t, p.Write(b, 0, code))
				if i%5 == 4 {
					require.NoError(t, p.Finalize())
				}
				blocks = append(blocks, b)
			}
			require.NoError(t, p.Finalize())
			for i, b := range blocks {
				got, err := CallIntVoid(b.Addr)
				require.NoError(t, err)
				require.Equal(t, int32(1+i%2), got)
			}
			for _, b := range blocks {
				require.NoError(t, s.FreeBlock(b))
			}
			require.NoError(t, p.Close())
			require.NoError(t, s.Verify(true))
		})
	}
}

func TestCallIntInt(t *testing.T) {
	fn := place(t, mc.neg)
	for _, v := range []int32{0, 5, -77, 1 << 30, -1 << 31} {
		got, err := CallIntInt(fn, v)
		require.NoError(t, err)
		assert.Equal(t, -v, got)
	}
}

func TestNilFunction(t *testing.T) {
	_, err := CallWrapper(0, nil, nil)
	assert.ErrorIs(t, err, ErrNilFunction)
	_, err = CallIntVoid(0)
	assert.ErrorIs(t, err, ErrNilFunction)
	_, err = CallIntInt(0, 1)
	assert.ErrorIs(t, err, ErrNilFunction)
	_, err = CallMain(0, nil)
	assert.ErrorIs(t, err, ErrNilFunction)
}

func TestCallWrapperResults(t *testing.T) {
	echo := place(t, mc.echo)
	// Inline 1..8 bytes.
	for k := 1; k <= 8; k++ {
		args := words(0x0807060504030201, uint64(k))
		got, err := CallWrapper(echo, args, []byte("pre"))
		require.NoError(t, err)
		assert.Equal(t, append([]byte("pre"), []byte{1, 2, 3, 4, 5, 6, 7, 8}[:k]...), got, "k=%d", k)
	}
	// Empty.
	got, err := CallWrapper(echo, words(0, 0), []byte("pre"))
	require.NoError(t, err)
	assert.Equal(t, []byte("pre"), got)

	// Large (malloc'd by "the callee", freed by CallWrapper): into spare
	// capacity (one transition) and past it (copy, then free).
	payload := bytes.Repeat([]byte("0123456789"), 10)
	for _, dstCap := range []int{0, 50, 100, 200} {
		p, err := cmem.MallocCopy(payload)
		require.NoError(t, err)
		got, err := CallWrapper(echo, words(uint64(p), uint64(len(payload))), make([]byte, 0, dstCap))
		require.NoError(t, err)
		assert.Equal(t, payload, got, "cap=%d", dstCap)
	}
	// Out-of-band error with a malloc'd message, short and long dst.
	for _, dstCap := range []int{0, 3, 64} {
		msg, err := cmem.MallocCopy([]byte("Could not deserialize arguments for wrapper function call\x00"))
		require.NoError(t, err)
		got, err := CallWrapper(echo, words(uint64(msg), 0), make([]byte, 0, dstCap))
		var oob *sps.OutOfBandError
		require.ErrorAs(t, err, &oob, "cap=%d", dstCap)
		assert.Equal(t, "Could not deserialize arguments for wrapper function call", oob.Msg)
		assert.Empty(t, got)
	}
	// Empty OOB message is still an OOB error.
	msg, err := cmem.MallocCopy([]byte{0})
	require.NoError(t, err)
	_, err = CallWrapper(echo, words(uint64(msg), 0), nil)
	var oob *sps.OutOfBandError
	require.ErrorAs(t, err, &oob)
	assert.Equal(t, "", oob.Msg)

	// Empty arguments: a valid, non-NULL pointer and size 0.
	empty := place(t, mc.emptyret)
	got, err = CallWrapper(empty, nil, nil)
	require.NoError(t, err)
	assert.Empty(t, got)
}

// TestCallWrapperMallocInCallee has the JIT'd code call malloc itself
// (address passed in the arguments) and return the buffer, as ORC runtime
// wrappers do.
func TestCallWrapperMallocInCallee(t *testing.T) {
	fn := place(t, mc.mallocfill)
	malloc := mustSym(t, "malloc")
	for _, n := range []uint64{9, 100, 4096, 1 << 20} {
		for _, dst := range [][]byte{nil, make([]byte, 0, n)} {
			got, err := CallWrapper(fn, words(uint64(malloc), n, 0x5a), dst)
			require.NoError(t, err)
			require.Len(t, got, int(n))
			assert.Equal(t, bytes.Repeat([]byte{0x5a}, int(n)), got)
		}
	}
	// 1..8 bytes from the same function are returned inline by the ABI;
	// the malloc'd pointer is then just the first 8 bytes of Data and
	// leaks: the callee broke the ABI, we must not free what is inline.
}

func TestCallMain(t *testing.T) {
	fn := place(t, mc.main)
	tests := []struct {
		args []string
		want int32
	}{
		{nil, 1000},
		{[]string{"a"}, 1001},
		{[]string{"a", "bb", "ccc"}, 1006},
		{[]string{"", "", ""}, 1000},
		{[]string{"x\x00yz"}, 1001}, // truncated at the NUL, as C sees it
		{strings.Fields(strings.Repeat("word ", 1000)), 5000},
	}
	for _, tc := range tests {
		got, err := CallMain(fn, tc.args)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, "%q", tc.args)
	}
}

// TestNativeStack checks native calls run on a full pthread stack: the
// size reported for the thread, and 6 MiB of real recursion in JIT'd code.
func TestNativeStack(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	size := threadStackSize()
	var rl syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_STACK, &rl))
	t.Logf("thread stack %d KiB, RLIMIT_STACK cur=%d", size>>10, rl.Cur)
	if rl.Cur == 8<<20 {
		// Threads the runtime creates report 8 MiB; the main thread reports
		// the limit minus a page or so.
		assert.GreaterOrEqual(t, size, uintptr(8<<20-64<<10), "native calls get the pthread default (RLIMIT_STACK)")
	}
	require.NotZero(t, size)
	depth := int32(6 << 10) // 6 MiB in 1 KiB frames
	if lim := int32(size*3/4) >> 10; lim < depth {
		t.Logf("stack smaller than 8 MiB here; recursing %d KiB", lim)
		depth = lim
	}
	fn := place(t, mc.recurse)
	got, err := CallIntInt(fn, depth)
	require.NoError(t, err)
	assert.Equal(t, depth, got)
}

func TestDispatchSymbolExported(t *testing.T) {
	h, err := Dlopen("", RTLD_NOW)
	require.NoError(t, err)
	p, err := Dlsym(h, "__llvm_orc_SimpleRemoteEPC_dispatch_fn")
	require.NoError(t, err)
	assert.Equal(t, DispatchFnAddr(), p, "dlsym(dlopen(NULL)) finds the dispatch function")
	p, err = Dlsym(h, "orcrt_call_wrapper")
	require.NoError(t, err)
	assert.NotZero(t, p, "other exported C symbols are found too")

	exe, err := os.Executable()
	require.NoError(t, err)
	nm, err := exec.LookPath("nm")
	if err != nil {
		t.Skip("nm not installed; dlsym check above passed")
	}
	out, err := exec.Command(nm, "-D", "--defined-only", exe).Output()
	require.NoError(t, err)
	assert.Regexp(t, `(?m)^[0-9a-f]+ T __llvm_orc_SimpleRemoteEPC_dispatch_fn$`, string(out))
}

func TestDlErrors(t *testing.T) {
	_, err := Dlopen("/nonexistent/libnothing.so", RTLD_NOW)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "native: dlopen")
	assert.Contains(t, err.Error(), "libnothing.so")
	h, err := Dlopen("", RTLD_NOW)
	require.NoError(t, err)
	_, err = Dlsym(h, "no_such_symbol_orcrt")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no_such_symbol_orcrt")
	// Concurrent failing lookups each see their own dlerror text.
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				name := fmt.Sprintf("missing_%d_%d", g, i)
				_, err := Dlsym(h, name)
				if err == nil || !strings.Contains(err.Error(), name) {
					t.Errorf("dlsym %s: %v", name, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	h2, err := Dlopen("libm.so.6", RTLD_NOW|RTLD_LOCAL)
	require.NoError(t, err)
	cos, err := Dlsym(h2, "cos")
	require.NoError(t, err)
	assert.NotZero(t, cos)
	require.NoError(t, Dlclose(h2))
	require.NoError(t, FflushAll())
}

// dispatchCall makes JIT'd code call the dispatch function with ctx, tag
// and payload (a tail call, so its result is the dispatch result).
func dispatchCall(t testing.TB, fn, ctx, tag uintptr, payload []byte) ([]byte, error) {
	args := append(words(uint64(DispatchFnAddr()), uint64(ctx), uint64(tag)), payload...)
	return CallWrapper(fn, args, nil)
}

func TestDispatch(t *testing.T) {
	fn := place(t, mc.dispatchtail)
	large := bytes.Repeat([]byte("L"), 300)
	var calls atomic.Int32
	ctx, err := RegisterDispatch(func(tag uint64, args []byte) ([]byte, string) {
		calls.Add(1)
		switch string(args) {
		case "inline":
			return []byte{byte(tag), 2, 3}, ""
		case "eight":
			return []byte("12345678"), ""
		case "large":
			return large, ""
		case "empty":
			return nil, ""
		case "oob":
			return []byte("ignored"), "No function registered for tag 0x1234"
		case "panic":
			panic("boom")
		case "":
			return []byte("no args"), ""
		}
		return nil, "unexpected " + string(args)
	})
	require.NoError(t, err)
	defer UnregisterDispatch(ctx)
	require.NotZero(t, ctx)

	got, err := dispatchCall(t, fn, ctx, 0x42, []byte("inline"))
	require.NoError(t, err)
	assert.Equal(t, []byte{0x42, 2, 3}, got)
	got, err = dispatchCall(t, fn, ctx, 1, []byte("eight"))
	require.NoError(t, err)
	assert.Equal(t, []byte("12345678"), got)
	got, err = dispatchCall(t, fn, ctx, 1, []byte("large")) // malloc'd by us, freed by CallWrapper
	require.NoError(t, err)
	assert.Equal(t, large, got)
	got, err = dispatchCall(t, fn, ctx, 1, []byte("empty"))
	require.NoError(t, err)
	assert.Empty(t, got)
	got, err = dispatchCall(t, fn, ctx, 1, nil)
	require.NoError(t, err)
	assert.Equal(t, []byte("no args"), got)
	_, err = dispatchCall(t, fn, ctx, 1, []byte("oob"))
	var oob *sps.OutOfBandError
	require.ErrorAs(t, err, &oob)
	assert.Equal(t, "No function registered for tag 0x1234", oob.Msg)
	_, err = dispatchCall(t, fn, ctx, 1, []byte("panic"))
	require.ErrorAs(t, err, &oob)
	assert.Equal(t, "jit_dispatch: handler panicked: boom", oob.Msg)
	assert.Equal(t, int32(7), calls.Load())

	// Unknown and unregistered contexts.
	for _, bad := range []uintptr{0, 1, ctx + 4096*2} {
		_, err = dispatchCall(t, fn, bad, 1, []byte("inline"))
		require.ErrorAs(t, err, &oob)
		assert.Equal(t, UnavailableMsg, oob.Msg)
	}
	other, err := RegisterDispatch(func(uint64, []byte) ([]byte, string) { return []byte("other"), "" })
	require.NoError(t, err)
	assert.NotEqual(t, ctx, other)
	got, err = dispatchCall(t, fn, other, 1, nil)
	require.NoError(t, err)
	assert.Equal(t, []byte("other"), got)
	assert.True(t, UnregisterDispatch(other))
	assert.False(t, UnregisterDispatch(other))
	_, err = dispatchCall(t, fn, other, 1, nil)
	require.ErrorAs(t, err, &oob)
	assert.Equal(t, UnavailableMsg, oob.Msg)
	_, err = RegisterDispatch(nil)
	assert.Error(t, err)
}

// TestDispatchFromForeignThread: JIT'd code creates its own pthread
// (unknown to Go), which calls the dispatch function; the Go handler runs
// and the result reaches that thread.
func TestDispatchFromForeignThread(t *testing.T) {
	spawn := place(t, mc.spawn)
	start := place(t, mc.threadstart)
	pcreate, pjoin := mustSym(t, "pthread_create"), mustSym(t, "pthread_join")
	ctx, err := RegisterDispatch(func(tag uint64, args []byte) ([]byte, string) {
		switch string(args) {
		case "small":
			return []byte{byte(tag)}, ""
		case "large":
			return bytes.Repeat([]byte{byte(tag)}, 1000), ""
		}
		return nil, "bad args " + string(args)
	})
	require.NoError(t, err)
	defer UnregisterDispatch(ctx)

	run := func(tag uint64, payload string) (data uint64, size uint64) {
		out := cmem.Malloc(16)
		defer cmem.Free(out)
		blk, err := cmem.MallocCopy(append(words(uint64(DispatchFnAddr()), uint64(ctx), tag, uint64(out), uint64(len(payload))), payload...))
		require.NoError(t, err)
		defer cmem.Free(blk)
		_, err = CallWrapper(spawn, words(uint64(pcreate), uint64(pjoin), uint64(start), uint64(blk)), nil)
		require.NoError(t, err)
		o := cmem.Bytes(out, 16)
		return binary.LittleEndian.Uint64(o), binary.LittleEndian.Uint64(o[8:])
	}
	data, size := run(7, "small")
	assert.Equal(t, uint64(1), size)
	assert.Equal(t, uint64(7), data&0xff)

	data, size = run(9, "large")
	require.Equal(t, uint64(1000), size)
	assert.Equal(t, bytes.Repeat([]byte{9}, 1000), cmem.Bytes(uintptr(data), 1000))
	cmem.Free(uintptr(data)) // libc-malloc'd for the JIT'd side: free() must accept it

	data, size = run(1, "weird")
	assert.Zero(t, size)
	require.NotZero(t, data, "OOB error: malloc'd message")
	msg := cmem.Bytes(uintptr(data), uintptr(len("bad args weird")+1))
	assert.Equal(t, "bad args weird\x00", string(msg))
	cmem.Free(uintptr(data))

	// Several foreign threads at once, plus Go callers, under -race.
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				d, s := run(uint64(g), "small")
				if s != 1 || d&0xff != uint64(g) {
					t.Errorf("thread result %#x/%d", d, s)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestCallWrapperAllocs pins the hot path at zero allocations for inline
// results and for large results that fit the caller's buffer.
func TestCallWrapperAllocs(t *testing.T) {
	echo := place(t, mc.echo)
	args := words(0x0102030405060708, 8)
	dst := make([]byte, 0, 64)
	n := testing.AllocsPerRun(1000, func() {
		out, err := CallWrapper(echo, args, dst[:0])
		if err != nil || len(out) != 8 {
			t.Fatalf("%v %v", out, err)
		}
	})
	if n != 0 {
		t.Errorf("inline wrapper call: %v allocs, want 0", n)
	}
	fill := place(t, mc.mallocfill)
	largeArgs := words(uint64(mustSym(t, "malloc")), 48, 1)
	n = testing.AllocsPerRun(1000, func() {
		out, err := CallWrapper(fill, largeArgs, dst[:0])
		if err != nil || len(out) != 48 {
			t.Fatalf("%v %v", out, err)
		}
	})
	if n != 0 {
		t.Errorf("large result into spare capacity: %v allocs, want 0", n)
	}
	empty := place(t, mc.emptyret)
	n = testing.AllocsPerRun(1000, func() {
		if _, err := CallWrapper(empty, nil, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := CallIntVoid(empty); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Errorf("empty result / int(void): %v allocs, want 0", n)
	}
}

// TestConcurrentCalls hammers native calls of shared code from many
// goroutines.
func TestConcurrentCalls(t *testing.T) {
	echo := place(t, mc.echo)
	neg := place(t, mc.neg)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dst := make([]byte, 0, 8)
			for i := range 2000 {
				v := uint64(g)<<32 | uint64(i)
				out, err := CallWrapper(echo, words(v, 8), dst[:0])
				if err != nil || binary.LittleEndian.Uint64(out) != v {
					t.Errorf("echo %#x: %x %v", v, out, err)
					return
				}
				if r, _ := CallIntInt(neg, int32(i)); r != -int32(i) {
					t.Errorf("neg %d = %d", i, r)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestOOBErrorIsPlainMessage(t *testing.T) {
	var err error = &sps.OutOfBandError{Msg: "disconnecting"}
	assert.Equal(t, "disconnecting", err.Error())
	var oob *sps.OutOfBandError
	assert.True(t, errors.As(fmt.Errorf("wrapped: %w", err), &oob))
}

func TestGoString(t *testing.T) {
	assert.Equal(t, "abc", GoString([]byte("abc\x00def")))
	assert.Equal(t, "abc", GoString([]byte("abc")))
	assert.Equal(t, "", GoString([]byte{0, 'x'}))
	assert.Equal(t, "", GoString(nil))
}
