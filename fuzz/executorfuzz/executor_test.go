//go:build cgo && linux

package executorfuzz

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orcgo/orcrt/alloc"
	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/fuzz/internal/memconn"
	fuzztarget "github.com/orcgo/orcrt/fuzz/internal/target"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/service/dylib"
	"github.com/orcgo/orcrt/service/ehframe"
	"github.com/orcgo/orcrt/service/gdbjit"
	"github.com/orcgo/orcrt/service/memaccess"
	"github.com/orcgo/orcrt/sps"
)

// Harness limits.
const (
	// maxMsg is the executor's MsgSize limit in the harness (the default
	// is 1 GiB): far above the allocation limit, so a reader that
	// allocated a claimed size fails the allocation check.
	maxMsg = 64 << 20
	// endTimeout bounds one input's session; a hang is a hang.
	endTimeout = 15 * time.Second
	// Heap bytes one input may allocate: allocPerByte per input byte plus
	// allocSlack for the Executor (Session, services, tables, goroutines).
	allocPerByte = 64
	allocSlack   = 8 << 20
	// The harness reserves nReserved regions of reservedSize before
	// serving, for kindReserve placeholders.
	nReserved    = 2
	reservedSize = 64 << 10
)

// transform rewrites the framed part of a controller stream for the
// world: CallWrapper targets through codeAddr, payloads of calls through
// sanitizeArgs. Frames keep their order; sizes are fixed up when a
// payload changes length. The first frame that cannot be parsed, and
// everything after it, is passed on unchanged (the reader must refuse it).
func (w *world) transform(b []byte) []byte {
	var out []byte
	for len(b) >= simpleremote.HeaderSize {
		h := simpleremote.ParseHeader(b)
		if h.Size < simpleremote.HeaderSize || h.Size > uint64(len(b)) {
			break
		}
		payload, rest := b[simpleremote.HeaderSize:h.Size], b[h.Size:]
		if h.Op == simpleremote.OpCallWrapper {
			h.Tag = w.codeAddr(uint64(h.Tag))
			payload = w.sanitizeArgs(w.byAddr[h.Tag], payload)
			h.Size = simpleremote.HeaderSize + uint64(len(payload))
		}
		var hdr [simpleremote.HeaderSize]byte
		simpleremote.PutHeader(hdr[:], h)
		out = append(append(out, hdr[:]...), payload...)
		b = rest
	}
	return append(out, b...)
}

// outcome of one input.
type outcome struct {
	err       error // Serve's result
	out       []byte
	allocated uint64
	local     bool // the harness disconnected locally (Hangup allowed)
	dialect   *dialect.Dialect
}

// newExecutor builds an executor as orcrt-executor does, with the
// harness's wire limits, and its world (reserving the placeholder
// regions).
func newExecutor(tb testing.TB) (*executor.Executor, *world) {
	return newExecutorFor(tb, dialect.Latest, false)
}

// newExecutorFor is newExecutor speaking dialect d. Unless concurrent,
// calls run one at a time on the reader, in order: the same input then
// covers the same code every run, which the engine's minimizer needs (a
// concurrent session makes most inputs look new, and minimizing each
// costs the engine a minute).
func newExecutorFor(tb testing.TB, d *dialect.Dialect, concurrent bool) (*executor.Executor, *world) {
	opts := executor.Options{Dialect: d, Wire: &simpleremote.Options{
		MaxMessageSize: maxMsg, ReadBufferSize: 4096, HangupTimeout: time.Second,
	}}
	if !concurrent {
		opts.Dispatcher = rt.InlineRunner{}
	}
	ex, err := executor.New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	w := newWorld(ex)
	for range nReserved {
		a, err := ex.MemoryManager().Reserve(reservedSize)
		if err != nil {
			tb.Fatal(err)
		}
		w.reserved = append(w.reserved, a)
	}
	return ex, w
}

// modeDialects is the dialect an input's executor speaks, by bits 4-5
// of its mode byte. LLVM main's includes LLVM 23's names and resolve, and
// brings its own wire decoders (result kinds, Hangup reasons).
var modeDialects = [4]*dialect.Dialect{dialect.LLVM22, dialect.LLVM19, dialect.LLVM14, dialect.LLVMMain}

// modeOf returns the mode byte that selects d (with the other bits of m).
func modeOf(m byte, d *dialect.Dialect) byte {
	i := slices.Index(modeDialects[:], d)
	return m&^0x30 | byte(i)<<4
}

func runSession(tb testing.TB, data []byte) outcome {
	var m memconn.Mode
	d := dialect.Latest
	if len(data) > 0 {
		m, d, data = memconn.ParseMode(data[0]), modeDialects[data[0]>>4&3], data[1:]
	}
	before := fuzztarget.HeapAllocs()
	ex, w := newExecutorFor(tb, d, m.Concurrent)
	in := w.transform(data)
	conn := memconn.New(in, m)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- ex.Serve(ctx, conn) }()
	o := outcome{dialect: d}
	if m.Detach {
		cancel()
		o.local = true
	}
	select {
	case o.err = <-errc:
	case <-conn.Drained():
		// Every frame was read and none ended the session: each call must
		// be answered (a call that never is, is a hang), then the harness
		// disconnects locally.
		calls := countFrames(in, simpleremote.OpCallWrapper)
		deadline := time.After(endTimeout)
		for !m.Detach && countFrames(conn.Output(), simpleremote.OpResult) < calls {
			select {
			case <-conn.Wrote():
			case <-deadline:
				tb.Fatalf("%d of %d calls unanswered after %v (mode %+v)", calls-countFrames(conn.Output(), simpleremote.OpResult), calls, endTimeout, m)
			}
		}
		cancel()
		o.local = true
		select {
		case o.err = <-errc:
		case <-time.After(endTimeout):
			tb.Fatalf("Serve did not return within %v after a local disconnect (mode %+v)", endTimeout, m)
		}
	case <-time.After(endTimeout):
		tb.Fatalf("Serve did not return within %v (mode %+v)", endTimeout, m)
	}
	ex.Close()
	o.out = conn.Output()
	o.allocated = fuzztarget.HeapAllocs() - before
	return o
}

// watchdog crashes the process with every goroutine's stack if the
// returned stop function is not called within d: a hang anywhere (also
// where the harness has no timeout of its own, such as shutdown) becomes
// a crash, which the fuzzing engine records with its input.
func watchdog(d time.Duration) (stop func()) {
	t := time.AfterFunc(d, func() {
		buf := make([]byte, 8<<20)
		buf = buf[:runtime.Stack(buf, true)]
		panic(fmt.Sprintf("executorfuzz: input still running after %v (hang)\n%s", d, buf))
	})
	return func() { t.Stop() }
}

// countFrames counts the well-formed messages with opcode op at the
// start of a stream.
func countFrames(b []byte, op simpleremote.Opcode) int {
	n := 0
	for len(b) >= simpleremote.HeaderSize {
		h := simpleremote.ParseHeader(b)
		if h.Size < simpleremote.HeaderSize || h.Size > uint64(len(b)) {
			break
		}
		if h.Op == op {
			n++
		}
		b = b[h.Size:]
	}
	return n
}

func allocLimit(data []byte) uint64 { return uint64(allocPerByte*len(data) + allocSlack) }

func check(t *testing.T, data []byte, o outcome) {
	t.Helper()
	// Serve's error joins the terminal error with what services reported
	// while shutting down (for example a dealloc action the input
	// registered failing at the final release). None may be a panic, and
	// at most one may be a wire error.
	var errs []error
	if j, ok := o.err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else if o.err != nil {
		errs = []error{o.err}
	}
	wire := 0
	for _, e := range errs {
		if strings.Contains(e.Error(), "panic") {
			t.Fatalf("Serve: %v", e)
		}
		if memconn.IsWireError(e) {
			wire++
		}
	}
	if wire > 1 {
		t.Fatalf("Serve reported %d terminal errors: %v", wire, o.err)
	}
	if limit := allocLimit(data); o.allocated > limit {
		t.Fatalf("allocated %d bytes for a %d-byte input (limit %d)", o.allocated, len(data), limit)
	}
	checkOutput(t, o)
}

// checkOutput verifies the executor's output stream: Setup first, then
// Results (TagAddr 0) and Hangup only after a local disconnect, and
// nothing after a Hangup. (Results echo the controller's sequence
// numbers, which the input may reuse; the executor makes no calls of its
// own here, nothing in the harness jit-dispatches.)
func checkOutput(t *testing.T, o outcome) {
	t.Helper()
	if len(o.out) == 0 && o.local {
		return // detached before attaching: nothing was ever sent
	}
	err := memconn.CheckOutputWire(o.out, o.dialect.SetupCodec(), o.local, o.dialect.Wire, func(h simpleremote.Header) error {
		if h.Op != simpleremote.OpResult {
			return fmt.Errorf("executorfuzz: executor sent %v", h)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// seedWorld is a world with the names only (placeholders are resolved
// per input, against each input's own executor).
func seedWorld(tb testing.TB) *world { return seedWorldFor(tb, dialect.Latest) }

func seedWorldFor(tb testing.TB, d *dialect.Dialect) *world {
	ex, w := newExecutorFor(tb, d, false)
	ex.Close()
	w.reserved = nil
	return w
}

func addExecutorSeeds(f *testing.F) {
	w := seedWorld(f)
	sym := func(name string) sps.Addr { return addrPh(phSym(w.sym(name))) }
	call := func(seq uint64, name string, args []byte) []byte {
		return wiretest.CallFrame(seq, sym(name), args)
	}
	mm := sym(alloc.MemoryManagerInstanceName)
	sm := sym(alloc.SharedMapperInstanceName)
	dl := sym(dylib.InstanceName)
	res0 := addrPh(phRes(0, 0))
	res1 := addrPh(phRes(1, 0x1000))
	gdb := sps.WrapperCall{Fn: sym(gdbjit.RegisterActionName), Args: sps.RegisterJITLoaderGDBAction.AppendArgs(nil, sps.AddrRange{Start: 0x1000, End: 0x1010}, false)}
	dereg := sps.WrapperCall{Fn: sym(ehframe.DeregisterActionName), Args: sps.DeregisterEHFrameAction.AppendArgs(nil, sps.AddrRange{Start: res0, End: res0 + 16})}
	session := cat(
		call(0, alloc.MemoryManagerReserveName, sps.MemoryManagerReserve.AppendArgs(nil, mm, 0x3000)),
		call(1, alloc.MemoryManagerInitializeName, sps.MemoryManagerInitialize.AppendArgs(nil, mm, sps.FinalizeRequest{
			Segments: []sps.SegFinalizeRequest{
				{Group: sps.Read | sps.Write, Addr: res0, Size: 0x1000, Content: []byte("data")},
				{Group: sps.Read | sps.Exec, Addr: res0 + 0x1000, Size: 0x1000, Content: []byte{0xc3}},
			},
			Actions: []sps.ActionPair{{Finalize: gdb, Dealloc: dereg}, {Finalize: sps.WrapperCall{Fn: 0x7777_0000_0000, Args: []byte{}}}},
		})),
		call(2, alloc.MemoryManagerInitializeName, sps.MemoryManagerInitialize.AppendArgs(nil, mm, sps.FinalizeRequest{
			Segments: []sps.SegFinalizeRequest{{Group: sps.Read, Addr: res1, Size: 0x100}},
			Actions:  []sps.ActionPair{{Dealloc: gdb}},
		})),
		call(3, alloc.MemoryManagerDeinitializeName, sps.MemoryManagerDeinitialize.AppendArgs(nil, mm, []sps.Addr{res1})),
		call(4, memaccess.ReadUInt64sName, sps.ReadUInt64s.AppendArgs(nil, []sps.Addr{res0, res0 + 8, 0x10, 0xdead0000})),
		call(5, memaccess.ReadPointersName, sps.ReadPointers.AppendArgs(nil, []sps.Addr{res0 + 0x1000})),
		call(6, dylib.OpenWrapperName, sps.DylibManagerOpen.AppendArgs(nil, dl, "", 0)),
		call(7, dylib.OpenWrapperName, sps.DylibManagerOpen.AppendArgs(nil, dl, "/nonexistent/libx.so", 0)),
		call(8, dylib.ResolveWrapperName, sps.DylibManagerResolve.AppendArgs(nil, 0x1234, []sps.LookupElement{{Name: []byte("printf"), Required: true}})),
		call(9, alloc.SharedMapperReserveName, sps.SharedMemoryReserve.AppendArgs(nil, sm, 0x10000)),
		call(10, alloc.SharedMapperInitializeName, sps.SharedMemoryInitialize.AppendArgs(nil, sm, 0x5000, sps.SharedFinalizeRequest{})),
		call(11, alloc.MemoryManagerReleaseName, sps.MemoryManagerRelease.AppendArgs(nil, mm, []sps.Addr{res0})),
		call(12, ehframe.DeregisterActionName, sps.DeregisterEHFrameAction.AppendArgs(nil, sps.AddrRange{Start: 0x1000, End: 0x1010})),
		call(13, gdbjit.RegisterActionName, sps.RegisterJITLoaderGDBAction.AppendArgs(nil, sps.AddrRange{Start: 0x2000, End: 0x1000}, true)),
		wiretest.CallFrame(14, mm, nil),          // an instance (Go heap) as a call target: refused by the code guard
		wiretest.CallFrame(15, res0+0x1000, nil), // JIT'd memory: sanitized away (code positions never point into it)
		wiretest.CallFrame(16, 0x1234_5678_9abc, []byte("x")),
		wiretest.CallFrame(17, 0, nil),
		call(18, "__llvm_orc_SimpleRemoteEPC_dispatch_fn", []byte("not a dispatch call")),
	)
	// Found by this fuzzer: a reserve whose size is an address (40 TiB of
	// per-page bookkeeping before alloc bounded reservations).
	huge := cat(
		call(0, alloc.MemoryManagerReserveName, sps.MemoryManagerReserve.AppendArgs(nil, mm, uint64(mm))),
		call(1, alloc.MemoryManagerReserveName, sps.MemoryManagerReserve.AppendArgs(nil, mm, 40<<40)),
		call(2, alloc.SharedMapperReserveName, sps.SharedMemoryReserve.AppendArgs(nil, sm, 40<<40)),
	)
	undecodable := cat(
		call(0, alloc.MemoryManagerReserveName, []byte{1, 2, 3}),
		call(1, alloc.MemoryManagerInitializeName, le64(uint64(mm))),
		call(2, dylib.ResolveWrapperName, nil),
		call(3, alloc.SharedMapperInitializeName, []byte{0xff}),
	)
	fatal := [][]byte{
		wiretest.RawHeader(40, 3, 0, 0)[:20],                    // truncated header
		cat(wiretest.RawHeader(40, 3, 0, 0), []byte{1, 2}),      // truncated payload
		wiretest.RawHeader(16, 3, 0, 0),                         // size below the header
		wiretest.RawHeader(math.MaxUint64, 3, 0, 0),             // size near 2^64
		wiretest.RawHeader(math.MaxUint64-31, 2, 0, 0),          // size near 2^64, payload length wraps if added
		wiretest.RawHeader(maxMsg+1, 3, 0, 0),                   // over the limit
		cat(wiretest.RawHeader(32<<20, 3, 0, 0), []byte("abc")), // large claim, 3 bytes
		wiretest.Frame(4, 0, 0, nil),                            // unknown opcode
		wiretest.Frame(0x103, 0, 0, nil),                        // opcode with high bits
		wiretest.SetupFrame(sps.SetupInfo{Triple: "x", PageSize: 1}),
		wiretest.ResultFrame(7, nil),          // Result for a call never made
		wiretest.HangupFrame([]byte{9, 9, 9}), // malformed Hangup: orderly
		cat(wiretest.HangupFrame(nil), session),
	}
	for _, m := range []byte{0x00, 0x05, 0x80, 0x41, 0xc6} {
		f.Add(append([]byte{m}, session...))
		f.Add(append([]byte{m}, undecodable...))
		f.Add(append([]byte{m}, huge...))
		for _, fc := range fatal {
			f.Add(append([]byte{m}, cat(session[:len(session)/2], fc)...))
		}
	}
	addLegacyExecutorSeeds(f)
	addMainExecutorSeeds(f)
	f.Add([]byte{})
	f.Add([]byte{0x80})
}

// addMainExecutorSeeds adds sessions of LLVM 23's and main's own calls
// and main's wire (result kinds, Hangups with reasons) for LLVM main's
// dialect, which includes 23's names and resolve.
func addMainExecutorSeeds(f *testing.F) {
	d := dialect.LLVMMain
	w := seedWorldFor(f, d)
	sym := func(name string) sps.Addr { return addrPh(phSym(w.sym(name))) }
	call := func(seq uint64, name string, args []byte) []byte {
		return wiretest.CallFrame(seq, sym(name), args)
	}
	mm, dl := sym(alloc.NativeMemoryMapInstanceName), sym(dylib.NativeInstanceName)
	res0 := addrPh(phRes(0, 0))
	set := []sps.LookupElement{{Name: []byte("printf")}, {Name: []byte("no_such_x"), Required: true}}
	session := cat(
		call(0, alloc.NativeMemoryMapReserveName, sps.MemoryManagerReserve.AppendArgs(nil, mm, 0x3000)),
		call(1, alloc.NativeMemoryMapInitializeName, sps.MemoryManagerInitialize.AppendArgs(nil, mm, sps.FinalizeRequest{
			Segments: []sps.SegFinalizeRequest{{Group: sps.Read | sps.Write, Addr: res0, Size: 0x1000, Content: []byte("data")}},
		})),
		call(2, dylib.NativeLoadName, sps.NativeDylibManagerLoad.AppendArgs(nil, dl, "")),
		call(3, dylib.NativeLookupName, sps.DylibManagerResolveAddrs.AppendArgs(nil, dl, 0x1234, set)),
		call(4, dylib.ResolveWrapperName, sps.DylibManagerResolveAddrs.AppendArgs(nil, dl, 0x1234, set)), // 23's form
		call(5, dylib.ResolveWrapperName, sps.DylibManagerResolve.AppendArgs(nil, 0x1234, set)),          // 22's form
		call(6, "orc_rt_ci_sps_mem_read_uint64s", sps.ReadUInt64s.AppendArgs(nil, []sps.Addr{res0, 0x10})),
		call(7, dialect.LLVMMain.GDBAllocAction, sps.RegisterEHFrameAction.AppendArgs(nil, sps.AddrRange{Start: 0x2000, End: 0x1000})),
		call(8, alloc.NativeMemoryMapReleaseMultipleName, sps.MemoryManagerRelease.AppendArgs(nil, mm, []sps.Addr{res0})),
		call(9, dylib.NativeLoadName, []byte{1, 2, 3}), // undecodable: a Result of kind 1
	)
	wire := [][]byte{
		wiretest.HangupFrame([]byte{0}), // orderly
		wiretest.HangupFrame(sps.Marshal(sps.ErrorCodec, errors.New("controller failed"))),
		wiretest.HangupFrame([]byte{1, 0xff}),                                   // a reason that does not decode
		wiretest.Frame(simpleremote.OpHangup, 3, 0, []byte{0}),                  // a Hangup with a sequence number
		wiretest.Frame(simpleremote.OpResult, 7, 1, sps.AppendString(nil, "x")), // an out-of-band error for no call
		wiretest.Frame(simpleremote.OpResult, 7, 1, []byte{0xff}),               // one that does not decode
		wiretest.Frame(simpleremote.OpResult, 7, 9, nil),                        // an unknown kind
		nil, // end of input without Hangup
	}
	for _, m := range []byte{0x00, 0x05, 0x80} {
		m = modeOf(m, d)
		for _, end := range wire {
			f.Add(append([]byte{m}, cat(session, end)...))
		}
	}
}

// addLegacyExecutorSeeds adds a session of LLVM 14-19's own calls for
// each of their dialects, as their controllers make them.
func addLegacyExecutorSeeds(f *testing.F) {
	for _, d := range []*dialect.Dialect{dialect.LLVM14, dialect.LLVM19} {
		w := seedWorldFor(f, d)
		sym := func(name string) sps.Addr { return addrPh(phSym(w.sym(name))) }
		call := func(seq uint64, name string, args []byte) []byte {
			return wiretest.CallFrame(seq, sym(name), args)
		}
		mm, dl := sym(alloc.MemoryManagerInstanceName), sym(dylib.InstanceName)
		res0 := addrPh(phRes(0, 0))
		eh := sps.AddrRange{Start: res0, End: res0 + 0x40}
		lookup := sps.DylibManagerLookupDefs.AppendArgs(nil, dl, 0, []sps.LookupElement{{Name: []byte("printf")}, {Name: []byte("no_such_x"), Required: true}})
		if d.Lookup == dialect.LookupAddrs {
			lookup = sps.DylibManagerLookupAddrs.AppendArgs(nil, dl, 0, []sps.LookupElement{{Name: []byte("printf")}, {Name: []byte("llvm_orc_registerJITLoaderGDBWrapper")}})
		}
		session := cat(
			call(0, alloc.MemoryManagerReserveName, sps.MemoryManagerReserve.AppendArgs(nil, mm, 0x3000)),
			call(1, alloc.MemoryManagerFinalizeName, sps.MemoryManagerFinalize.AppendArgs(nil, mm, sps.FinalizeRequest{
				Segments: []sps.SegFinalizeRequest{
					{Group: sps.Read | sps.Exec, Addr: res0, Size: 0x66, Content: []byte{0xc3}},
					{Group: sps.Read | sps.Write, Addr: res0 + 0x1000, Size: 0x1000, Content: []byte("data")},
				},
				Actions: []sps.ActionPair{{Finalize: sps.WrapperCall{Fn: sym("llvm_orc_registerJITLoaderGDBWrapper"), Args: sps.RegisterJITLoaderGDBAction.AppendArgs(nil, eh, false)}}},
			})),
			call(2, dylib.OpenWrapperName, sps.DylibManagerOpen.AppendArgs(nil, dl, "", 0)),
			call(3, dylib.LookupWrapperName, lookup),
			call(4, "llvm_orc_deregisterEHFrameSectionWrapper", sps.DeregisterEHFrameAction.AppendArgs(nil, eh)),
			call(6, alloc.MemoryManagerDeallocateName, sps.MemoryManagerDeallocate.AppendArgs(nil, mm, []sps.Addr{res0, 0xdead000})),
			call(7, alloc.MemoryManagerFinalizeName, sps.MemoryManagerFinalize.AppendArgs(nil, mm, sps.FinalizeRequest{})),
		)
		for _, m := range []byte{0x00, 0x05, 0x85, 0x0d} {
			f.Add(append([]byte{modeOf(m, d)}, session...))
		}
	}
}

// FuzzExecutor: see the package documentation.
func FuzzExecutor(f *testing.F) {
	addExecutorSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer watchdog(3 * endTimeout)()
		o := runSession(t, data)
		if o.allocated > allocLimit(data) {
			// The heap statistics are process-wide (the fuzzing engine
			// allocates too): confirm with a second run.
			o.allocated = min(o.allocated, runSession(t, data).allocated)
		}
		check(t, data, o)
	})
}

// TestTransform checks the harness's own stream rewriting.
func TestTransform(t *testing.T) {
	ex, w := newExecutor(t)
	defer ex.Close()
	reserve := w.addr[alloc.MemoryManagerReserveName]
	in := cat(
		wiretest.CallFrame(0, addrPh(phSym(w.sym(alloc.MemoryManagerReserveName))), le64(phSym(w.sym(alloc.MemoryManagerInstanceName)))),
		wiretest.CallFrame(1, 0x40_1000, nil),
		wiretest.CallFrame(2, 0x10, nil),
		wiretest.ResultFrame(3, le64(phSym(0))),
		wiretest.RawHeader(1000, 3, 0, 0),
	)
	out := w.transform(in)
	r := simpleremote.NewReader(bytes.NewReader(out), maxMsg, 0)
	h, p, err := r.ReadMsg()
	if err != nil || h.Tag != reserve || binary.LittleEndian.Uint64(p) != uint64(w.addr[alloc.MemoryManagerInstanceName]) {
		t.Fatalf("frame 0: %v %x %v", h, p, err)
	}
	if h, _, _ = r.ReadMsg(); h.Tag != 0x8000_0000_0040_1000 {
		t.Fatalf("frame 1: code address not moved away: %v", h)
	}
	if h, _, _ = r.ReadMsg(); h.Tag != 0x10 {
		t.Fatalf("frame 2: %v", h)
	}
	if h, p, _ = r.ReadMsg(); h.Op != simpleremote.OpResult || binary.LittleEndian.Uint64(p) != phSym(0) {
		t.Fatalf("frame 3: results are not rewritten: %v %x", h, p)
	}
	if _, _, err = r.ReadMsg(); !errors.Is(err, simpleremote.ErrUnexpectedEOF) {
		t.Fatalf("raw tail: %v", err)
	}
}

// TestSeedsReachTheServices: the placeholders of the seeds resolve, so
// fuzzing starts deep inside the services — reservations succeed,
// initialize runs its actions and reaches the code guard, calls of
// non-code are refused — rather than at argument decoding.
func TestSeedsReachTheServices(t *testing.T) {
	w := seedWorld(t)
	sym := func(name string) sps.Addr { return addrPh(phSym(w.sym(name))) }
	mm := sym(alloc.MemoryManagerInstanceName)
	res0 := addrPh(phRes(0, 0))
	in := cat(
		wiretest.CallFrame(0, sym(alloc.MemoryManagerReserveName), sps.MemoryManagerReserve.AppendArgs(nil, mm, 0x3000)),
		wiretest.CallFrame(1, sym(alloc.MemoryManagerInitializeName), sps.MemoryManagerInitialize.AppendArgs(nil, mm, sps.FinalizeRequest{
			Segments: []sps.SegFinalizeRequest{{Group: sps.Read | sps.Write, Addr: res0, Size: 0x1000}},
			Actions:  []sps.ActionPair{{Finalize: sps.WrapperCall{Fn: 0x7777_0000_0000, Args: []byte{}}}},
		})),
		wiretest.CallFrame(2, sym(alloc.MemoryManagerInitializeName), sps.MemoryManagerInitialize.AppendArgs(nil, mm, sps.FinalizeRequest{
			Segments: []sps.SegFinalizeRequest{{Group: sps.Read | sps.Write, Addr: res0 + 0x2000, Size: 0x1000}}, // calls run concurrently
			Actions:  []sps.ActionPair{{Finalize: sps.WrapperCall{Fn: sym(gdbjit.RegisterActionName), Args: sps.RegisterJITLoaderGDBAction.AppendArgs(nil, sps.AddrRange{Start: 1, End: 2}, false)}}},
		})),
		wiretest.CallFrame(3, mm, []byte("x")),
		wiretest.CallFrame(4, sym(memaccess.ReadUInt64sName), sps.ReadUInt64s.AppendArgs(nil, []sps.Addr{res0})),
	)
	o := runSession(t, append([]byte{0x85}, in...)) // silent controller: all results arrive
	check(t, in, o)
	results := map[uint64][]byte{}
	r := simpleremote.NewReader(bytes.NewReader(o.out), math.MaxUint64, 0)
	for {
		h, p, err := r.ReadMsg()
		if err != nil {
			break
		}
		if h.Op == simpleremote.OpResult {
			results[h.SeqNo] = p
		}
	}
	v, err := sps.MemoryManagerReserve.DecodeResult(results[0])
	if err != nil || v.Err != nil || v.Value == 0 {
		t.Fatalf("reserve: %+v %v", v, err)
	}
	k, err := sps.MemoryManagerInitialize.DecodeResult(results[1])
	if err != nil || k.Err == nil || !strings.Contains(k.Err.Error(), "codemap: 0x8000777700000000 is not executable code") {
		t.Fatalf("initialize with an action at a sanitized address: %+v %v", k, err)
	}
	k, err = sps.MemoryManagerInitialize.DecodeResult(results[2])
	if err != nil || k.Err != nil {
		t.Fatalf("initialize of a harness reservation: %+v %v", k, err)
	}
	if p, ok := results[3]; !ok || len(p) != 0 {
		t.Fatalf("call of an instance: %x %v (want an empty result)", p, ok)
	}
	u, err := sps.ReadUInt64s.DecodeResult(results[4])
	if err != nil || len(u) != 1 {
		t.Fatalf("read of a harness reservation: %v %v", u, err)
	}
}
