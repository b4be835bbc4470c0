//go:build cgo && linux

package executorfuzz

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/service/dylib"
	"github.com/orcgo/orcrt/service/ehframe"
	"github.com/orcgo/orcrt/service/entry"
	"github.com/orcgo/orcrt/service/jitdispatch"
	"github.com/orcgo/orcrt/service/memaccess"
	"github.com/orcgo/orcrt/sps"
)

// sandboxSize is the data memory confined addresses land in (the
// package documentation says how each kind of address is rewritten).
const sandboxSize = 64 << 10

type confinedKind int

const (
	cWrite confinedKind = iota
	cWriteBuffers
	cReadBuffers
	cReadStrings
	cRunMain
	cRunVoid
	cRunInt
	cEHRegister
	cJITWrapper // an unknown call target: entry.CallJITWrapper
	cDispatch   // JIT'd code calling the controller: jitdispatch's handler
	// cReadBuffersSized is orc-rt's read_buffers (LLVM main): (address,
	// size) pairs instead of ranges.
	cReadBuffersSized
)

// confinedTarget is a trusted-side wrapper: its bootstrap name (none for
// cJITWrapper), what its arguments are, and the dialect serving it (nil:
// the latest).
type confinedTarget struct {
	name    string
	kind    confinedKind
	width   int // cWrite: the element size
	dialect *dialect.Dialect
}

// confinedTargets: new ones go at the end (the first input byte selects
// one modulo their number).
var confinedTargets = []confinedTarget{
	{memaccess.WriteUInt8sName, cWrite, 1, nil},
	{memaccess.WriteUInt16sName, cWrite, 2, nil},
	{memaccess.WriteUInt32sName, cWrite, 4, nil},
	{memaccess.WriteUInt64sName, cWrite, 8, nil},
	{memaccess.WritePointersName, cWrite, 8, nil},
	{memaccess.WriteBuffersName, cWriteBuffers, 0, nil},
	{memaccess.ReadBuffersName, cReadBuffers, 0, nil},
	{memaccess.ReadStringsName, cReadStrings, 0, nil},
	{entry.RunAsMainName, cRunMain, 0, nil},
	{entry.RunAsVoidFunctionName, cRunVoid, 0, nil},
	{entry.RunAsIntFunctionName, cRunInt, 0, nil},
	{ehframe.RegisterActionName, cEHRegister, 0, nil},
	{"__llvm_orc_bootstrap_register_ehframe_section_wrapper", cEHRegister, 0, dialect.LLVM14},
	{"llvm_orc_registerEHFrameSectionWrapper", cEHRegister, 0, dialect.LLVM14},
	{"llvm_orc_registerEHFrameSectionWrapper", cEHRegister, 0, dialect.LLVM19},
	{"", cJITWrapper, 0, nil},
	{memaccess.WriteUInt8sName, cWrite, 1, dialect.LLVM14}, // 14-19 have the writes only
	{memaccess.WriteBuffersName, cWriteBuffers, 0, dialect.LLVM19},
	{jitdispatch.FnName, cDispatch, 0, nil},
	{"orc_rt_ci_sps_mem_read_buffers", cReadBuffersSized, 0, dialect.LLVMMain},
}

func (tg confinedTarget) dialectOf() *dialect.Dialect {
	if tg.dialect == nil {
		return dialect.Latest
	}
	return tg.dialect
}

// newDispatchSession returns a Session with an in-process controller
// that answers tag 1 with the arguments, 2 and 3 with the out-of-band
// errors of a disconnect and of no controller, and has no handler for
// the others.
func newDispatchSession() (*rt.Session, error) {
	info, err := rt.DetectProcessInfo()
	if err != nil {
		return nil, err
	}
	s := rt.NewSession(info, rt.InlineRunner{}, nil)
	l := rt.NewLoopback(func(c *rt.LoopbackController, _ *rt.BootstrapInfo) error {
		c.RegisterFunc(1, func(args []byte) rt.WrapperResult { return rt.ResultBytes(bytes.Clone(args)) })
		c.RegisterFunc(2, func([]byte) rt.WrapperResult { return rt.OutOfBandResult(rt.MsgDisconnected) })
		c.RegisterFunc(3, func([]byte) rt.WrapperResult { return rt.OutOfBandResult(rt.MsgNoController) })
		return nil
	})
	return s, s.Attach(l, nil)
}

// checkDispatch checks what JIT'd code calling the controller with tag
// and args got back.
func checkDispatch(t *testing.T, tag uint64, args, b []byte, msg string) {
	want := fmt.Sprintf("rt: loopback controller has no handler for tag %#x", tag)
	switch tag {
	case 1:
		if msg != "" || !bytes.Equal(b, args) {
			t.Fatalf("dispatch echo: %x, %q", b, msg)
		}
		return
	case 2:
		want = jitdispatch.MsgDisconnecting
	case 3:
		want = native.UnavailableMsg
	}
	if b != nil || msg != want {
		t.Fatalf("dispatch to tag %d: %x, %q (want %q)", tag, b, msg, want)
	}
}

// confinement is the harness-owned memory, made once per process.
type confinement struct {
	mem    []byte // the sandbox
	shadow []byte // what mem must hold
	ehPage []byte // read-only zeros
	abs    sps.Addr
	getpid sps.Addr
	// dispatch is a Session whose controller is in-process (cDispatch).
	dispatch *rt.Session
}

var (
	confineOnce sync.Once
	confined    *confinement
	confineErr  error
)

func getConfinement(tb testing.TB) *confinement {
	confineOnce.Do(func() { confined, confineErr = newConfinement() })
	if confineErr != nil {
		tb.Fatal(confineErr)
	}
	return confined
}

func newConfinement() (*confinement, error) {
	pg := os.Getpagesize()
	m, err := unix.Mmap(-1, 0, sandboxSize+2*pg, unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, err
	}
	mem := m[pg : pg+sandboxSize]
	if err := unix.Mprotect(mem, unix.PROT_READ|unix.PROT_WRITE); err != nil {
		return nil, err
	}
	eh, err := unix.Mmap(-1, 0, pg, unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, err
	}
	c := &confinement{mem: mem, shadow: make([]byte, sandboxSize), ehPage: eh}
	dl := dylib.New()
	h, err := dl.Open("", 0)
	if err != nil {
		return nil, err
	}
	defs, err := dl.Resolve(h, []sps.LookupElement{{Name: []byte("abs"), Required: true}, {Name: []byte("getpid"), Required: true}})
	if err != nil {
		return nil, err
	}
	c.abs, c.getpid = defs[0].Value.Addr, defs[1].Value.Addr
	c.dispatch, err = newDispatchSession()
	return c, err
}

func (c *confinement) base() uint64 { return addrOf(c.mem) }

// addrOf is the address of b's first byte (mapped memory, not Go's).
func addrOf(b []byte) uint64 { return uint64(uintptr(unsafe.Pointer(&b[0]))) }

// data returns the sandbox address for a of an n-byte access aligned to
// align (n <= sandboxSize); the second result is its offset.
func (c *confinement) data(a uint64, n, align int) (uint64, int) {
	off := int(a%uint64(sandboxSize-n+1)) &^ (align - 1)
	return c.base() + uint64(off), off
}

// ehSection returns an address in the page of zeros: an empty section.
func (c *confinement) ehSection(a uint64) uint64 {
	if a == 0 {
		return 0 // refused as a null section
	}
	return addrOf(c.ehPage) + a%uint64(len(c.ehPage)-4)&^3
}

// function returns what a function address to run becomes.
func (c *confinement) function(v uint64) uint64 {
	switch {
	case isPlaceholder(v):
		if _, k, off := phKind(v); (k<<16|off)%2 == 0 {
			return uint64(c.abs)
		}
		return uint64(c.getpid)
	case v < 0x10000:
		return v
	}
	return v | 1<<63
}

// offsetOf is d's position in args.
func offsetOf(args []byte, d *sps.Decoder) int { return len(args) - len(d.Rest()) }

// confinedCall is a call's arguments after confinement, and what check
// needs to know of them.
type confinedCall struct {
	args     []byte
	writes   func(shadow []byte) // what a successful write does
	fn       uint64              // the function run (cRun*)
	confined bool                // cReadBuffers: every range is in the sandbox
	ehAt     uint64              // the section registered (cEHRegister)
}

// confine rewrites the addresses in args for tg, in a copy when anything
// changes; arguments the wrapper's own decoding refuses stay as they are.
func (c *confinement) confine(tg confinedTarget, args []byte) confinedCall {
	out := confinedCall{args: args}
	switch tg.kind {
	case cWrite:
		d := sps.NewDecoder(args)
		w := tg.width
		n := d.Count(8+w, "write elements") // as memaccess decodes it
		if d.Failed() {
			return out
		}
		b := bytes.Clone(args)
		start := offsetOf(args, &d)
		type write struct {
			off int
			v   []byte
		}
		ws := make([]write, n)
		for i := range n {
			e := start + i*(8+w)
			a, off := c.data(binary.LittleEndian.Uint64(b[e:]), w, w)
			binary.LittleEndian.PutUint64(b[e:], a)
			ws[i] = write{off, b[e+8 : e+8+w]}
		}
		out.args = b
		out.writes = func(s []byte) {
			for _, x := range ws {
				copy(s[x.off:], x.v)
			}
		}
	case cWriteBuffers:
		d := sps.NewDecoder(args)
		n := d.Count(16, "buffer writes") // as memaccess validates it
		bw := make([]sps.BufferWrite, 0, n)
		for i := 0; i < n && !d.Failed(); i++ {
			a := d.Addr()
			bw = append(bw, sps.BufferWrite{Addr: a, Data: d.Bytes()})
		}
		if d.Failed() {
			return out
		}
		offs := make([]int, n)
		for i := range bw {
			bw[i].Data = bw[i].Data[:min(len(bw[i].Data), sandboxSize)]
			a, off := c.data(uint64(bw[i].Addr), len(bw[i].Data), 1)
			bw[i].Addr, offs[i] = sps.Addr(a), off
		}
		out.args = sps.WriteBuffers.AppendArgs(nil, bw)
		out.writes = func(s []byte) {
			for i, x := range bw {
				copy(s[offs[i]:], x.Data)
			}
		}
	case cReadBuffers, cReadBuffersSized:
		sized := tg.kind == cReadBuffersSized
		d := sps.NewDecoder(args)
		n := d.Count(16, "address ranges")
		if d.Failed() {
			return out
		}
		start := offsetOf(args, &d)
		var total uint64
		for i := range n {
			s := binary.LittleEndian.Uint64(args[start+16*i:])
			e := binary.LittleEndian.Uint64(args[start+16*i+8:])
			if sized {
				e += s
			}
			if e < s || total+(e-s) < total || total+(e-s) > 1<<62 {
				return out // refused before anything is read
			}
			total += e - s
		}
		b := bytes.Clone(args)
		for i := range n {
			r := b[start+16*i:]
			s, e := binary.LittleEndian.Uint64(r), binary.LittleEndian.Uint64(r[8:])
			if sized {
				e += s
			}
			size := min(e-s, sandboxSize)
			a, _ := c.data(s, int(size), 1)
			binary.LittleEndian.PutUint64(r, a)
			if sized {
				binary.LittleEndian.PutUint64(r[8:], size)
			} else {
				binary.LittleEndian.PutUint64(r[8:], a+size)
			}
		}
		out.args, out.confined = b, true
	case cReadStrings:
		d := sps.NewDecoder(args)
		n := d.Count(8, "addresses")
		if d.Failed() {
			return out
		}
		start := offsetOf(args, &d)
		b := bytes.Clone(args)
		for i := range n {
			a, _ := c.data(binary.LittleEndian.Uint64(b[start+8*i:]), 1, 1)
			binary.LittleEndian.PutUint64(b[start+8*i:], a)
		}
		out.args = b
	case cRunMain, cRunVoid, cRunInt, cJITWrapper, cEHRegister, cDispatch:
		// The address comes first in every one of them.
		if len(args) < 8 {
			return out
		}
		b := bytes.Clone(args)
		v := binary.LittleEndian.Uint64(b)
		switch tg.kind {
		case cEHRegister:
			v = c.ehSection(v)
			out.ehAt = v
		case cDispatch:
			v %= 5
		case cJITWrapper:
			if v >= 0x10000 {
				v |= 1 << 63 // never real code
			}
		default:
			v = c.function(v)
			out.fn = v
		}
		binary.LittleEndian.PutUint64(b, v)
		out.args = b
	}
	return out
}

// check verifies a call's result r against the shadow (brought up to
// date first if the call wrote) and the sandbox.
func (c *confinement) check(t *testing.T, tg confinedTarget, cc confinedCall, r rt.WrapperResult) {
	msg, oob := r.OutOfBandError()
	if oob && strings.Contains(msg, "panic") {
		t.Fatalf("%s: %s", tg.name, msg)
	}
	if !oob && cc.writes != nil {
		cc.writes(c.shadow)
	}
	if !bytes.Equal(c.mem, c.shadow) {
		copy(c.shadow, c.mem) // the next input starts in sync
		t.Fatalf("%s (oob %q): the sandbox differs from the writes made", tg.name, msg)
	}
	if oob {
		switch tg.kind {
		case cWrite, cWriteBuffers:
			if msg != tg.dialectOf().DeserializeArgs {
				t.Fatalf("%s: a write in the sandbox failed: %s", tg.name, msg)
			}
		case cReadBuffers, cReadBuffersSized:
			if cc.confined {
				t.Fatalf("%s: a read in the sandbox failed: %s", tg.name, msg)
			}
		case cReadStrings:
			// Only a string with no terminator before the guard page may fail.
			addrs, err := sps.ReadStrings.DecodeArgs(cc.args)
			unterminated := slices.ContainsFunc(addrs, func(a sps.Addr) bool {
				return bytes.IndexByte(c.shadow[uint64(a)-c.base():], 0) < 0
			})
			if err == nil && !unterminated {
				t.Fatalf("%s: reading terminated strings failed: %s", tg.name, msg)
			}
		case cRunMain, cRunVoid, cRunInt:
			if (cc.fn == uint64(c.abs) || cc.fn == uint64(c.getpid)) && msg != tg.dialectOf().DeserializeArgs {
				t.Fatalf("%s: running %#x failed: %s", tg.name, cc.fn, msg)
			}
		}
		return
	}
	b := r.Bytes()
	var err error
	switch tg.kind {
	case cWrite, cWriteBuffers:
		if len(b) != 0 {
			t.Fatalf("%s: result %x for a void function", tg.name, b)
		}
	case cReadBuffers, cReadBuffersSized:
		var ranges []sps.AddrRange
		var bufs [][]byte
		if ranges, err = sps.ReadBuffers.DecodeArgs(cc.args); err == nil {
			bufs, err = sps.ReadBuffers.DecodeResult(b)
		}
		if tg.kind == cReadBuffersSized {
			for i := range ranges {
				ranges[i].End += ranges[i].Start // (address, size)
			}
		}
		if err == nil && len(bufs) != len(ranges) {
			t.Fatalf("%s: %d buffers for %d ranges", tg.name, len(bufs), len(ranges))
		}
		for i, rg := range ranges {
			off := uint64(rg.Start) - c.base()
			if err == nil && !bytes.Equal(bufs[i], c.shadow[off:off+uint64(rg.End-rg.Start)]) {
				t.Fatalf("%s: buffer %d differs from the sandbox", tg.name, i)
			}
		}
	case cReadStrings:
		var addrs []sps.Addr
		var strs []string
		if addrs, err = sps.ReadStrings.DecodeArgs(cc.args); err == nil {
			strs, err = sps.ReadStrings.DecodeResult(b)
		}
		if err == nil && len(strs) != len(addrs) {
			t.Fatalf("%s: %d strings for %d addresses", tg.name, len(strs), len(addrs))
		}
		for i, a := range addrs {
			rest := c.shadow[uint64(a)-c.base():]
			n := bytes.IndexByte(rest, 0)
			if err == nil && (n < 0 || strs[i] != string(rest[:n])) {
				t.Fatalf("%s: string %d (%q) differs from the sandbox", tg.name, i, strs[i])
			}
		}
	case cRunMain:
		var v int64
		if v, err = sps.RunAsMain.DecodeResult(b); err == nil && cc.fn == uint64(c.abs) {
			_, argv, _ := sps.RunAsMain.DecodeArgs(cc.args)
			if v != int64(len(argv)) {
				t.Fatalf("%s: abs(argc=%d) returned %d", tg.name, len(argv), v)
			}
		}
	case cRunVoid:
		var v int32
		if v, err = sps.RunAsVoidFunction.DecodeResult(b); err == nil && cc.fn == uint64(c.getpid) && v != int32(os.Getpid()) {
			t.Fatalf("%s: getpid returned %d", tg.name, v)
		}
	case cRunInt:
		var v int32
		if v, err = sps.RunAsIntFunction.DecodeResult(b); err == nil && cc.fn == uint64(c.abs) {
			_, x, _ := sps.RunAsIntFunction.DecodeArgs(cc.args)
			if x < 0 {
				x = -x // abs(INT32_MIN) is INT32_MIN here too
			}
			if v != x {
				t.Fatalf("%s: abs returned %d, want %d", tg.name, v, x)
			}
		}
	case cEHRegister:
		_, err = sps.RegisterEHFrameAction.DecodeResult(b)
	case cJITWrapper:
		t.Fatalf("%s: a call of %x succeeded", tg.name, cc.args[:8])
	}
	if err != nil {
		t.Fatalf("%s: result %x does not decode: %v", tg.name, b, err)
	}
}

// FuzzConfinedWrappers: see the package documentation.
func FuzzConfinedWrappers(f *testing.F) {
	addConfinedSeeds(f)
	f.Cleanup(closeWrapperWorlds)
	f.Fuzz(func(t *testing.T, which byte, args []byte) { callConfined(t, which, args) })
}

// callConfined calls the target which selects with args confined, checks
// the result and returns it.
func callConfined(t *testing.T, which byte, args []byte) rt.WrapperResult {
	defer watchdog(3 * callTimeout)()
	wrapperState.mu.Lock()
	defer wrapperState.mu.Unlock()
	c := getConfinement(t)
	tg := confinedTargets[int(which)%len(confinedTargets)]
	ex, w := wrapperWorld(t, tg.dialectOf())
	cc := c.confine(tg, args)
	var fn rt.WrapperFunc
	switch tg.kind {
	case cJITWrapper, cDispatch:
		var target sps.Addr
		rest := cc.args
		if len(rest) >= 8 {
			target, rest = sps.Addr(binary.LittleEndian.Uint64(rest)), rest[8:]
		}
		fn = func(s *rt.Session, _ []byte, ret rt.ReturnFunc) {
			if tg.kind == cJITWrapper {
				entry.CallJITWrapper(s, target, rest, ret)
				return
			}
			b, msg := jitdispatch.Handler(c.dispatch)(uint64(target), rest)
			checkDispatch(t, uint64(target), rest, b, msg)
			ret(rt.OutOfBandResult("checked")) // nothing for check to do
		}
	default:
		var ok bool
		if fn, ok = ex.Session().LookupWrapper(w.addr[tg.name]); !ok {
			t.Fatalf("%s: no such wrapper in %s", tg.name, tg.dialectOf().Name)
		}
	}
	r := callWrapper(t, ex.Session(), fn, cc.args)
	if cc.ehAt != 0 {
		// One registration of every other section may stay, so that a
		// later one is counted on top of it (the page has 1,023 sections).
		keep := int(cc.ehAt/4) % 2
		for ehframe.Registered(sps.Addr(cc.ehAt)) > keep {
			if err := ehframe.Deregister(sps.Addr(cc.ehAt)); err != nil {
				t.Fatal(err)
			}
		}
	}
	c.check(t, tg, cc, r)
	return r
}

// confinedSeed is a seed input; ok: the call succeeds.
type confinedSeed struct {
	which byte
	args  []byte
	ok    bool
}

func confinedSeeds() []confinedSeed {
	idx := func(name string, d *dialect.Dialect) byte {
		for i, tg := range confinedTargets {
			if tg.name == name && tg.dialect == d {
				return byte(i)
			}
		}
		panic("executorfuzz: no confined target " + name)
	}
	var seeds []confinedSeed
	add := func(name string, ok bool, args []byte) { seeds = append(seeds, confinedSeed{idx(name, nil), args, ok}) }
	abs, getpid := addrPh(phSym(0)), addrPh(phSym(1))
	add(memaccess.WriteUInt8sName, true, sps.WriteUInt8s.AppendArgs(nil, []sps.UIntWrite[uint8]{{Addr: 0x10, Value: 'h'}, {Addr: 0x11, Value: 'i'}}))
	add(memaccess.WriteUInt16sName, true, sps.WriteUInt16s.AppendArgs(nil, []sps.UIntWrite[uint16]{{Addr: 0x20, Value: 0xbeef}}))
	add(memaccess.WriteUInt32sName, true, sps.WriteUInt32s.AppendArgs(nil, []sps.UIntWrite[uint32]{{Addr: 0x30, Value: 0xdeadbeef}, {Addr: 0xffff_ffff, Value: 1}}))
	add(memaccess.WriteUInt64sName, true, sps.WriteUInt64s.AppendArgs(nil, []sps.UIntWrite[uint64]{{Addr: 0x40, Value: 1 << 60}}))
	add(memaccess.WritePointersName, true, sps.WritePointers.AppendArgs(nil, []sps.UIntWrite[sps.Addr]{{Addr: 0x48, Value: 0x7fff_0000_1000}}))
	add(memaccess.WriteBuffersName, true, sps.WriteBuffers.AppendArgs(nil, []sps.BufferWrite{{Addr: 0x100, Data: []byte("hello, sandbox")}, {Addr: 0x200}, {Addr: 0xfff0, Data: bytes.Repeat([]byte{7}, 64)}}))
	add(memaccess.ReadBuffersName, true, sps.ReadBuffers.AppendArgs(nil, []sps.AddrRange{{Start: 0x100, End: 0x10e}, {Start: 0x40, End: 0x40}, {Start: 0, End: 1 << 20}}))
	add(memaccess.ReadBuffersName, false, sps.ReadBuffers.AppendArgs(nil, []sps.AddrRange{{Start: 0x20, End: 0x10}}))
	add(memaccess.ReadBuffersName, false, sps.ReadBuffers.AppendArgs(nil, []sps.AddrRange{{Start: 0, End: 1 << 63}, {Start: 0, End: 1 << 63}}))
	add(memaccess.ReadStringsName, true, sps.ReadStrings.AppendArgs(nil, []sps.Addr{0x10, 0x100, 0x300}))
	add(memaccess.WriteBuffersName, true, sps.WriteBuffers.AppendArgs(nil, []sps.BufferWrite{{Addr: sandboxSize - 8, Data: []byte("no NUL..")}}))
	add(memaccess.ReadStringsName, false, sps.ReadStrings.AppendArgs(nil, []sps.Addr{sandboxSize - 4})) // runs into the guard page
	add(entry.RunAsMainName, true, sps.RunAsMain.AppendArgs(nil, abs, []string{"prog", "a", "b"}))
	add(entry.RunAsMainName, false, sps.RunAsMain.AppendArgs(nil, 0, nil))
	add(entry.RunAsMainName, false, sps.RunAsMain.AppendArgs(nil, 0x7f00_dead_0000, []string{"x"}))
	add(entry.RunAsVoidFunctionName, true, sps.RunAsVoidFunction.AppendArgs(nil, getpid))
	add(entry.RunAsVoidFunctionName, false, sps.RunAsVoidFunction.AppendArgs(nil, 0x1000))
	add(entry.RunAsVoidFunctionName, false, sps.RunAsVoidFunction.AppendArgs(nil, 0))
	add(entry.RunAsIntFunctionName, false, sps.RunAsIntFunction.AppendArgs(nil, 0, 7))
	add(entry.RunAsIntFunctionName, true, sps.RunAsIntFunction.AppendArgs(nil, abs, -42))
	add(entry.RunAsIntFunctionName, true, sps.RunAsIntFunction.AppendArgs(nil, abs, -1<<31))
	add(entry.RunAsIntFunctionName, false, sps.RunAsIntFunction.AppendArgs(nil, 0x7f00_dead_0000, 1))
	add(ehframe.RegisterActionName, true, sps.RegisterEHFrameAction.AppendArgs(nil, sps.AddrRange{Start: 0x40, End: 0x44}))
	add(ehframe.RegisterActionName, true, sps.RegisterEHFrameAction.AppendArgs(nil, sps.AddrRange{Start: 0x44, End: 0x48}))
	add(ehframe.RegisterActionName, true, sps.RegisterEHFrameAction.AppendArgs(nil, sps.AddrRange{Start: 0x44, End: 0x48})) // on top of the one kept
	add(ehframe.RegisterActionName, true, sps.RegisterEHFrameAction.AppendArgs(nil, sps.AddrRange{}))                       // an SPSError
	add("", false, append(le64(0x7f00_0000_1000), "args"...))
	add("", false, le64(0))
	for tag := range uint64(5) {
		add(jitdispatch.FnName, false, append(le64(tag), "args"...))
	}
	for _, d := range []*dialect.Dialect{dialect.LLVM14, dialect.LLVM19} {
		rng := sps.RegisterEHFrameAction.AppendArgs(nil, sps.AddrRange{Start: 0x80, End: 0x84})
		seeds = append(seeds, confinedSeed{idx("llvm_orc_registerEHFrameSectionWrapper", d), rng, true})
	}
	seeds = append(seeds,
		confinedSeed{idx("__llvm_orc_bootstrap_register_ehframe_section_wrapper", dialect.LLVM14), sps.RegisterEHFrameAction.AppendArgs(nil, sps.AddrRange{Start: 0x84, End: 0x88}), true},
		confinedSeed{idx(memaccess.WriteUInt8sName, dialect.LLVM14), sps.WriteUInt8s.AppendArgs(nil, []sps.UIntWrite[uint8]{{Addr: 0x12, Value: '!'}}), true},
		confinedSeed{idx(memaccess.WriteBuffersName, dialect.LLVM19), sps.WriteBuffers.AppendArgs(nil, []sps.BufferWrite{{Addr: 0x13, Data: []byte("?")}}), true},
	)
	for i := range confinedTargets {
		seeds = append(seeds,
			confinedSeed{byte(i), []byte{}, false},
			confinedSeed{byte(i), []byte{1, 2, 3}, false},
			confinedSeed{byte(i), le64(1 << 40), false}, // a count no input can hold
		)
	}
	return seeds
}

func addConfinedSeeds(f *testing.F) {
	for _, s := range confinedSeeds() {
		f.Add(s.which, s.args)
	}
}

// TestConfinedSeeds: the seeds marked ok get past decoding and the code
// guard into success (so the fuzzer starts from the paths that act), the
// others are refused.
func TestConfinedSeeds(t *testing.T) {
	defer closeWrapperWorlds()
	for i, s := range confinedSeeds() {
		r := callConfined(t, s.which, s.args)
		if msg, oob := r.OutOfBandError(); oob == s.ok {
			t.Errorf("seed %d (%s): ok=%v, out-of-band %q", i, confinedTargets[s.which].name, s.ok, msg)
		}
	}
}
