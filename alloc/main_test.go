//go:build cgo && (amd64 || arm64)

package alloc

import (
	"encoding/binary"
	"fmt"
	"github.com/orcgo/orcrt/internal/cmem"
	"github.com/orcgo/orcrt/rt/dialect"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/orcgo/orcrt/internal/fuzzmin"
	"github.com/orcgo/orcrt/internal/sysmem"
	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/slab"
	"github.com/orcgo/orcrt/sps"
)

// machineCode holds the test actions; code_<arch>_test.go fills it.
type machineCode struct {
	noop, add, record, retbuf, empty []byte
}

// TestMain checks for leaks after all tests: goroutines (goleak), slab
// arenas, shared-memory objects of this process in /dev/shm and mappings
// of them.
func TestMain(m *testing.M) {
	fuzzmin.Bound()
	code := m.Run()
	if code == 0 {
		if err := leaks(); err != nil {
			fmt.Fprintln(os.Stderr, "alloc:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func leaks() error {
	if n := slab.LiveSlabs(); n != 0 {
		return fmt.Errorf("%d slab arenas leaked", n)
	}
	objs, err := filepath.Glob(fmt.Sprintf("%s/jitlink_%d_*", shmDir, os.Getpid()))
	if err != nil {
		return err
	}
	if len(objs) != 0 {
		return fmt.Errorf("shared-memory objects leaked: %v", objs)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(maps), "\n") {
		if strings.Contains(line, "/jitlink_") {
			return fmt.Errorf("shared-memory mapping leaked: %s", line)
		}
	}
	return goleak.Find()
}

// errLog collects errors reported to a Session.
type errLog struct {
	mu   sync.Mutex
	errs []string
}

func (l *errLog) report(_ *rt.Session, err error) {
	l.mu.Lock()
	l.errs = append(l.errs, err.Error())
	l.mu.Unlock()
}

func (l *errLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.errs...)
}

// env is a Session with a registered memory manager and shared-memory
// mapper, attached to an in-process (loopback) controller.
type env struct {
	t         testing.TB
	s         *rt.Session
	run       *rt.GoRunner
	syms      *rt.SymbolTable
	mm        *MemoryManager
	sm        *SharedMemoryMapper
	ctl       *rt.LoopbackController
	errs      *errLog
	allowErrs bool
	closed    bool
}

func newEnv(t testing.TB, cfg Config) *env {
	t.Helper()
	info, err := rt.DetectProcessInfo()
	require.NoError(t, err)
	e := &env{t: t, run: rt.NewGoRunner(0), syms: rt.NewSymbolTable(), errs: &errLog{}}
	e.s = rt.NewSession(info, e.run, e.errs.report)
	e.mm, err = Register(e.s, e.syms, cfg)
	require.NoError(t, err)
	e.sm, err = RegisterSharedMemoryMapper(e.s, e.syms)
	require.NoError(t, err)
	l := rt.NewLoopback(nil)
	require.NoError(t, e.s.Attach(l, rt.NewBootstrapInfo(e.s, e.syms, nil)))
	e.ctl = l.Controller()
	t.Cleanup(e.close)
	return e
}

// newCodeEnv is newEnv(t, Config{}) with the test actions loaded.
func newCodeEnv(t testing.TB) (*env, jitCode) {
	t.Helper()
	e := newEnv(t, Config{})
	return e, e.loadCode()
}

// close shuts the Session down (OnShutdown releases everything) and
// checks that nothing unexpected was reported.
func (e *env) close() {
	if e.closed {
		return
	}
	e.closed = true
	e.s.Close()
	e.run.Close()
	if !e.allowErrs {
		if errs := e.errs.get(); len(errs) != 0 {
			e.t.Errorf("errors reported to the Session: %q", errs)
		}
	}
}

// call calls the bootstrap wrapper name through the controller and waits
// for its result.
func (e *env) call(name string, args []byte) rt.WrapperResult {
	e.t.Helper()
	addr, ok := e.ctl.Lookup(name)
	require.True(e.t, ok, name)
	ch := make(chan rt.WrapperResult, 1)
	e.ctl.CallWrapper(addr, args, func(r rt.WrapperResult) { ch <- r })
	return <-ch
}

// jitCode holds the addresses of the test actions, placed in memory the
// memory manager finalized as R-X.
type jitCode struct {
	noop, add, record, retbuf, empty sps.Addr
	malloc                           uint64
}

func (e *env) loadCode() jitCode {
	e.t.Helper()
	var buf []byte
	place := func(code []byte) sps.Addr {
		off := len(buf)
		buf = append(buf, code...)
		for len(buf)%64 != 0 {
			buf = append(buf, 0)
		}
		return sps.Addr(off)
	}
	c := jitCode{noop: place(mc.noop), add: place(mc.add), record: place(mc.record), retbuf: place(mc.retbuf), empty: place(mc.empty)}
	base, err := e.mm.Reserve(uint64(len(buf)))
	require.NoError(e.t, err)
	_, err = e.mm.Initialize(&sps.FinalizeRequest{Segments: []sps.SegFinalizeRequest{
		{Group: sps.Read | sps.Exec, Addr: base, Size: uint64(len(buf)), Content: buf},
	}})
	require.NoError(e.t, err)
	c.noop += base
	c.add += base
	c.record += base
	c.retbuf += base
	c.empty += base
	h, err := native.Dlopen("", native.RTLD_NOW)
	require.NoError(e.t, err)
	p, err := native.Dlsym(h, "malloc")
	require.NoError(e.t, err)
	require.NoError(e.t, native.Dlclose(h))
	c.malloc = uint64(p)
	return c
}

func words(ws ...uint64) []byte {
	var b []byte
	for _, w := range ws {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return b
}

func (c jitCode) nop() sps.WrapperCall { return sps.WrapperCall{Fn: c.noop, Args: []byte{}} }

func (c jitCode) addTo(ctr sps.Addr, delta uint64) sps.WrapperCall {
	return sps.WrapperCall{Fn: c.add, Args: words(uint64(ctr), delta)}
}

func (c jitCode) rec(l *cLog, id uint64) sps.WrapperCall {
	return sps.WrapperCall{Fn: c.record, Args: words(uint64(l.p), id)}
}

// ret makes an action returning b (malloc'd), as an out-of-band error if
// oob. Results of 1..8 bytes travel inline (docs/protocol.md §4.1), which
// retbuf does not do: they are not allowed here.
func (c jitCode) ret(b []byte, oob bool) sps.WrapperCall {
	if !oob && len(b) <= 8 {
		panic("retbuf results of at most 8 bytes would be read as inline bytes")
	}
	o := uint64(0)
	if oob {
		o = 1
	}
	return sps.WrapperCall{Fn: c.retbuf, Args: append(words(c.malloc, uint64(len(b)), o), b...)}
}

// fail is an action returning the SPSError failure msg.
func (c jitCode) fail(msg string) sps.WrapperCall {
	return c.ret(sps.AppendString([]byte{1}, msg), false)
}

// oob is an action returning the out-of-band error msg.
func (c jitCode) oob(msg string) sps.WrapperCall { return c.ret(append([]byte(msg), 0), true) }

func (c jitCode) emptyRet() sps.WrapperCall { return sps.WrapperCall{Fn: c.empty, Args: []byte{}} }

// cLog is a log of action ids in C memory: word 0 counts, entries follow.
type cLog struct {
	p uintptr
	n int
}

func newLog(t testing.TB, n int) *cLog {
	l := &cLog{p: cmem.Malloc(uintptr(8 * (n + 1))), n: n}
	clear(sysmem.View(l.p, uintptr(8*(n+1))))
	t.Cleanup(func() { cmem.Free(l.p) })
	return l
}

func (l *cLog) entries() []uint64 {
	v := sysmem.View(l.p, uintptr(8*(l.n+1)))
	k := binary.LittleEndian.Uint64(v)
	if k > uint64(l.n) {
		panic("test log overflow")
	}
	out := make([]uint64, k)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(v[8*(i+1):])
	}
	return out
}

func (l *cLog) reset() { clear(sysmem.View(l.p, 8)) }

// mem views n bytes at a.
func mem(a sps.Addr, n int) []byte { return sysmem.View(uintptr(a), uintptr(n)) }

func u64At(a sps.Addr) uint64 { return binary.LittleEndian.Uint64(mem(a, 8)) }

func seg(g sps.AllocGroup, a sps.Addr, size uint64, content []byte) sps.SegFinalizeRequest {
	return sps.SegFinalizeRequest{Group: g, Addr: a, Size: size, Content: content}
}

func pair(f, d sps.WrapperCall) sps.ActionPair { return sps.ActionPair{Finalize: f, Dealloc: d} }

var none sps.WrapperCall

// rwBlock reserves and initializes a zeroed read-write block.
func (e *env) rwBlock(size uint64) sps.Addr {
	e.t.Helper()
	base := e.reserve(size)
	_, err := e.mm.Initialize(&sps.FinalizeRequest{Segments: []sps.SegFinalizeRequest{seg(sps.Read|sps.Write, base, size, nil)}})
	require.NoError(e.t, err)
	return base
}

// reserve reserves size bytes from the memory manager.
func (e *env) reserve(size uint64) sps.Addr {
	e.t.Helper()
	base, err := e.mm.Reserve(size)
	require.NoError(e.t, err)
	return base
}

// reserveN makes n reservations of size bytes.
func (e *env) reserveN(n int, size uint64) []sps.Addr {
	e.t.Helper()
	bases := make([]sps.Addr, n)
	for i := range bases {
		bases[i] = e.reserve(size)
	}
	return bases
}

// recordingCode reserves and initializes one page of code (mc.record)
// whose dealloc action records 1 in l, and returns its base.
func (e *env) recordingCode(l *cLog) sps.Addr {
	e.t.Helper()
	base := e.reserve(0x2000)
	_, err := e.mm.Initialize(&sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{seg(sps.Read|sps.Exec, base, 0x1000, mc.record)},
		Actions:  []sps.ActionPair{pair(none, sps.WrapperCall{Fn: base, Args: words(uint64(l.p), 1)})},
	})
	require.NoError(e.t, err)
	return base
}

// collect returns an error handler appending each message to *msgs.
func collect(msgs *[]string) func(error) {
	return func(err error) { *msgs = append(*msgs, err.Error()) }
}

// protAt returns the protection /proc/self/maps shows for the page at a.
func protAt(t testing.TB, a sps.Addr) slab.Prot {
	t.Helper()
	maps, err := slab.ReadMaps()
	require.NoError(t, err)
	for _, m := range maps {
		if uintptr(a) >= m.Start && uintptr(a) < m.End {
			return m.Prot
		}
	}
	t.Fatalf("address %#x is not mapped", uint64(a))
	return 0
}

// assertProt checks the protection /proc/self/maps shows for the page at
// a. QEMU user mode (where the arm64 tests run) synthesizes that file from
// host mappings and cannot tell adjacent r-- and r-x pages apart; there,
// and only there, the two are accepted for each other.
func assertProt(t testing.TB, a sps.Addr, want string, msgAndArgs ...any) bool {
	t.Helper()
	got := protAt(t, a).String()
	if readExecConflated() && (want == "r--" || want == "r-x") && (got == "r--" || got == "r-x") {
		return true
	}
	return assert.Equal(t, want, got, msgAndArgs...)
}

// readExecConflated reports the QEMU quirk: an r-x page followed by an
// r-- page shows up as one mapping with one protection.
var readExecConflated = sync.OnceValue(func() bool {
	ps := sysmem.PageSize()
	p, err := sysmem.Mmap(0, 2*ps, sysmem.ProtRead, sysmem.MapPrivate|sysmem.MapAnonymous, -1, 0)
	if err != nil {
		return false
	}
	defer func() { _ = sysmem.Munmap(p, 2*ps) }()
	if sysmem.Mprotect(p, ps, sysmem.ProtRead|sysmem.ProtExec) != nil {
		return false
	}
	maps, err := slab.ReadMaps()
	if err != nil {
		return false
	}
	var first, second slab.Prot
	for _, m := range maps {
		if p >= m.Start && p < m.End {
			first = m.Prot
		}
		if p+ps >= m.Start && p+ps < m.End {
			second = m.Prot
		}
	}
	return first == second
})

// mapped reports whether a is mapped at all.
func mapped(t testing.TB, a sps.Addr) bool {
	t.Helper()
	maps, err := slab.ReadMaps()
	require.NoError(t, err)
	for _, m := range maps {
		if uintptr(a) >= m.Start && uintptr(a) < m.End {
			return true
		}
	}
	return false
}

// okAddr is the SPSExpected<Addr> success encoding.
func okAddr(a sps.Addr) []byte { return sps.AppendAddr([]byte{1}, a) }

// errPayload is the encoding of an SPSExpected (tag 0) or SPSError (tag 1) failure.
func errPayload(tag byte, msg string) []byte { return sps.AppendString([]byte{tag}, msg) }

var msgDeserializeArgs = dialect.Latest.DeserializeArgs
