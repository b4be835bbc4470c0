//go:build linux && cgo

package perfjit_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/svctest"
	"github.com/orcgo/orcrt/service/perfjit"
	"github.com/orcgo/orcrt/sps"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The jitdump state is process-global: these tests run in order.

func harness(t *testing.T) *svctest.Harness {
	t.Setenv("JITDUMPDIR", t.TempDir())
	return svctest.New(t, func(s *rt.Session, syms *rt.SymbolTable) error {
		for name, fn := range perfjit.Wrappers() {
			if err := syms.Add(name, s.RegisterWrapper(fn)); err != nil {
				return err
			}
		}
		return nil
	})
}

func callErr(t *testing.T, h *svctest.Harness, name string, args []byte) error {
	t.Helper()
	r := h.CallName(name, args)
	if msg, oob := r.OutOfBandError(); oob {
		return fmt.Errorf("out of band: %s", msg)
	}
	err, derr := sps.Unmarshal(sps.ErrorCodec, r.Bytes())
	require.NoError(t, derr)
	return err
}

func addrOf(b []byte) uint64 { return uint64(uintptr(unsafe.Pointer(&b[0]))) }

// record is one jitdump record: its type and body.
type record struct {
	id   uint32
	body []byte
}

func readDump(t *testing.T, path string) (hdr []byte, recs []record) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(b), 40)
	hdr, b = b[:40], b[40:]
	for len(b) > 0 {
		require.GreaterOrEqual(t, len(b), 16)
		n := binary.LittleEndian.Uint32(b[4:])
		require.GreaterOrEqual(t, int(n), 16)
		require.LessOrEqual(t, int(n), len(b), "record overruns the file")
		recs = append(recs, record{binary.LittleEndian.Uint32(b), b[16:n]})
		b = b[n:]
	}
	return hdr, recs
}

func TestJitdumpRecords(t *testing.T) {
	h := harness(t)
	require.NoError(t, callErr(t, h, perfjit.StartName, nil))
	path := perfjit.Path()
	require.NotEmpty(t, path)
	assert.Regexp(t, `/\.debug/jit/llvm-IR-jit-\d{8}-\d+/jit-\d+\.dump$`, path)

	code := []byte{0x55, 0x48, 0x89, 0xe5, 0x5d, 0xc3}
	ehFrame := []byte("0123456789abcdefghij")
	b := sps.PerfRecordBatch{
		CodeLoads: []sps.PerfCodeLoad{{Prefix: sps.PerfRecordPrefix{ID: 0, TotalSize: 1}, Pid: 1, Tid: 2,
			VMA: addrOf(code), CodeAddr: addrOf(code), CodeSize: uint64(len(code)), CodeIndex: 7, Name: "hot_loop"}},
		DebugInfos: []sps.PerfDebugInfo{{Prefix: sps.PerfRecordPrefix{ID: 2, TotalSize: 1}, CodeAddr: addrOf(code),
			Entries: []sps.PerfDebugEntry{{Addr: addrOf(code), Line: 3, Discrim: 0, Name: "hot.c"}}}},
		Unwinding: sps.PerfUnwinding{Prefix: sps.PerfRecordPrefix{ID: 4, TotalSize: 1}, UnwindDataSize: 12 + 20,
			EHFrameHdrSize: 12, EHFrameHdr: []byte("HDRHDRHDRHDR"), EHFrameAddr: addrOf(ehFrame)},
	}
	require.NoError(t, callErr(t, h, perfjit.ImplName, sps.RegisterPerfImpl.AppendArgs(nil, b)))
	require.NoError(t, callErr(t, h, perfjit.EndName, nil))
	assert.Empty(t, perfjit.Path(), "the last End closes the file")
	runtime.KeepAlive(code)
	runtime.KeepAlive(ehFrame)

	hdr, recs := readDump(t, path)
	le := binary.LittleEndian
	assert.Equal(t, uint32(0x4A695444), le.Uint32(hdr[0:]), "magic")
	assert.Equal(t, uint32(1), le.Uint32(hdr[4:]), "version")
	assert.Equal(t, uint32(40), le.Uint32(hdr[8:]), "header size")
	assert.Equal(t, uint32(os.Getpid()), le.Uint32(hdr[20:]), "pid")
	require.Len(t, recs, 4)
	ids := []uint32{recs[0].id, recs[1].id, recs[2].id, recs[3].id}
	assert.Equal(t, []uint32{2, 4, 0, 3}, ids, "debug info, unwinding, code load, close")

	di := recs[0].body
	assert.Equal(t, addrOf(code), le.Uint64(di[0:]))
	assert.Equal(t, uint64(1), le.Uint64(di[8:]), "entries")
	assert.Equal(t, uint32(3), le.Uint32(di[24:]), "line")
	assert.Equal(t, "hot.c\x00", string(di[32:]))

	uw := recs[1].body
	assert.Equal(t, uint64(32), le.Uint64(uw[0:]))
	assert.Equal(t, uint64(12), le.Uint64(uw[8:]))
	assert.Equal(t, "HDRHDRHDRHDR"+string(ehFrame), string(uw[24:]))

	cl := recs[2].body
	assert.Equal(t, uint32(os.Getpid()), le.Uint32(cl[0:]), "the executor's pid, not the controller's")
	assert.Equal(t, addrOf(code), le.Uint64(cl[16:]))
	assert.Equal(t, uint64(len(code)), le.Uint64(cl[24:]))
	assert.Equal(t, uint64(7), le.Uint64(cl[32:]), "code index")
	assert.Equal(t, "hot_loop\x00"+string(code), string(cl[40:]), "name and a copy of the code")

	m, err := os.ReadFile(fmt.Sprintf("/tmp/perf-%d.map", os.Getpid()))
	require.NoError(t, err)
	assert.Contains(t, string(m), fmt.Sprintf("%x %x hot_loop\n", addrOf(code), len(code)))
}

// TestHostileRecords: a bad batch ends the call with an error naming what
// was wrong, and writes nothing.
func TestHostileRecords(t *testing.T) {
	h := harness(t)
	require.NoError(t, callErr(t, h, perfjit.StartName, nil))
	path := perfjit.Path()
	size := func() int64 {
		st, err := os.Stat(path)
		require.NoError(t, err)
		return st.Size()
	}
	before := size()

	none, err := unix.Mmap(-1, 0, os.Getpagesize(), unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANON)
	require.NoError(t, err)
	defer unix.Munmap(none)
	ok := make([]byte, 64)
	code := func(addr, size uint64) sps.PerfRecordBatch {
		return sps.PerfRecordBatch{CodeLoads: []sps.PerfCodeLoad{
			{CodeAddr: addrOf(ok), CodeSize: 8, Name: "good"},
			{CodeAddr: addr, CodeSize: size, Name: "bad"},
		}}
	}
	for name, tc := range map[string]struct {
		b    sps.PerfRecordBatch
		want string
	}{
		"zero page":         {code(8, 16), "perfjit: code of bad at 0x8 (16 bytes)"},
		"PROT_NONE":         {code(addrOf(none), 16), "memory fault at address"},
		"wraps":             {code(^uint64(0)-4, 16), "wraps around the address space"},
		"too big":           {code(addrOf(ok), 1<<40), "more than a jitdump record holds"},
		"header past data":  {sps.PerfRecordBatch{Unwinding: sps.PerfUnwinding{Prefix: sps.PerfRecordPrefix{TotalSize: 1}, UnwindDataSize: 4, EHFrameHdrSize: 12}}, ".eh_frame_hdr of 12 bytes in 4 bytes"},
		"header size wrong": {sps.PerfRecordBatch{Unwinding: sps.PerfUnwinding{Prefix: sps.PerfRecordPrefix{TotalSize: 1}, UnwindDataSize: 12, EHFrameHdrSize: 12, EHFrameHdr: []byte{1}}}, ".eh_frame_hdr of 1 bytes, 12 stated"},
		"bad eh_frame":      {sps.PerfRecordBatch{Unwinding: sps.PerfUnwinding{Prefix: sps.PerfRecordPrefix{TotalSize: 1}, UnwindDataSize: 20, EHFrameHdrSize: 4, EHFrameHdr: []byte{1, 2, 3, 4}, EHFrameAddr: addrOf(none)}}, "perfjit: .eh_frame at"},
	} {
		err := callErr(t, h, perfjit.ImplName, sps.RegisterPerfImpl.AppendArgs(nil, tc.b))
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), tc.want, name)
		assert.Equal(t, before, size(), "%s: nothing written", name)
	}

	// Undecodable arguments: every strict prefix of a valid batch.
	valid := sps.RegisterPerfImpl.AppendArgs(nil, code(addrOf(ok), 8))
	for i := range valid {
		err := callErr(t, h, perfjit.ImplName, valid[:i])
		require.Error(t, err, "prefix %d", i)
		assert.Contains(t, err.Error(), "Could not deserialize arguments", "prefix %d", i)
	}
	// A count that claims more records than the bytes could hold is
	// refused before anything is allocated.
	huge := binary.LittleEndian.AppendUint64(nil, 1<<60)
	assert.ErrorContains(t, callErr(t, h, perfjit.ImplName, huge), "Could not deserialize arguments")
	assert.Equal(t, before, size())
	runtime.KeepAlive(ok)
	require.NoError(t, callErr(t, h, perfjit.EndName, nil))
}

func TestNotStarted(t *testing.T) {
	h := harness(t)
	assert.ErrorContains(t, callErr(t, h, perfjit.ImplName, sps.RegisterPerfImpl.AppendArgs(nil, sps.PerfRecordBatch{})), "perf support is not started")
	assert.ErrorContains(t, callErr(t, h, perfjit.EndName, nil), "perf support is not started")
}

// TestSessionEndCloses: a controller that goes away without End leaves a
// complete file; two Sessions share one file until the last ends.
func TestSessionEndCloses(t *testing.T) {
	h1 := harness(t)
	h2 := svctest.New(t, func(s *rt.Session, syms *rt.SymbolTable) error {
		for name, fn := range perfjit.Wrappers() {
			if err := syms.Add(name, s.RegisterWrapper(fn)); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, callErr(t, h1, perfjit.StartName, nil))
	require.NoError(t, callErr(t, h2, perfjit.StartName, nil))
	path := perfjit.Path()
	h1.Close()
	assert.Equal(t, path, perfjit.Path(), "still open for the other Session")
	h2.Close()
	assert.Empty(t, perfjit.Path())
	_, recs := readDump(t, path)
	require.NotEmpty(t, recs)
	assert.Equal(t, uint32(3), recs[len(recs)-1].id, "closed")
	assert.True(t, strings.HasPrefix(filepath.Base(path), "jit-"))
}

// TestStartAfterShutdown: a Start that races the Session's shutdown (its
// end-of-session callback then runs at once) neither deadlocks nor leaves
// the file open.
func TestStartAfterShutdown(t *testing.T) {
	h := harness(t)
	h.Close()
	done := make(chan rt.WrapperResult, 1)
	perfjit.Wrappers()[perfjit.StartName](h.S, nil, func(r rt.WrapperResult) { done <- r })
	r := <-done
	err, derr := sps.Unmarshal(sps.ErrorCodec, r.Bytes())
	require.NoError(t, derr)
	require.NoError(t, err)
	assert.Empty(t, perfjit.Path(), "closed by the Session's end")
}
