package wirefuzz

// The bodies of the fuzz targets: FuzzX in fuzz_test.go runs X under go
// test's engine, fuzz/wirefuzz/libfuzzer under libFuzzer's.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orcgo/orcrt/fuzz/internal/memconn"
	"github.com/orcgo/orcrt/fuzz/internal/target"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/sps"
)

// Harness limits.
const (
	// maxMsg is the CA's MsgSize limit in the harness: far above the
	// allocation slack, so a reader that allocated a claimed size would
	// fail the allocation check, and any larger claim takes the limit path.
	maxMsg = 64 << 20
	// endTimeout bounds one input's session. Generous: a hang is a hang.
	endTimeout = 10 * time.Second
	// Heap bytes one input may allocate: allocPerByte per input byte plus
	// allocSlack for the Session, runner, goroutines and buffers. A
	// reader that sized anything from a claimed length (up to 2^64-1)
	// would exceed it by orders of magnitude.
	allocPerByte = 32
	allocSlack   = 2 << 20
)

// Call targets are small integers; the Session's unknown-target handler
// maps them to these test wrappers, so inputs need no real addresses.
const (
	tEcho   = iota // returns its arguments
	tEmpty         // empty result
	tOOB           // out-of-band error (empty payload on the wire)
	tNested        // u64 tag + payload: blocks on a controller call, returns its result
	tBig           // u16 n: returns n bytes
	tTwice         // two controller calls in sequence (tag 0x10, 0x11)
	nTargets
)

func wrappers() [nTargets]rt.WrapperFunc {
	call := func(s *rt.Session, tag sps.Addr, args []byte) rt.WrapperResult {
		done := make(chan rt.WrapperResult, 1)
		s.CallController(tag, args, func(r rt.WrapperResult) { done <- r })
		return <-done
	}
	return [nTargets]rt.WrapperFunc{
		tEcho:  func(_ *rt.Session, a []byte, ret rt.ReturnFunc) { ret(rt.ResultBytes(a)) },
		tEmpty: func(_ *rt.Session, _ []byte, ret rt.ReturnFunc) { ret(rt.EmptyResult()) },
		tOOB:   func(_ *rt.Session, _ []byte, ret rt.ReturnFunc) { ret(rt.OutOfBandResult("fuzz: oob")) },
		tNested: func(s *rt.Session, a []byte, ret rt.ReturnFunc) {
			if len(a) < 8 {
				ret(rt.OutOfBandResult("fuzz: short"))
				return
			}
			ret(call(s, sps.Addr(binary.LittleEndian.Uint64(a)), a[8:]))
		},
		tBig: func(_ *rt.Session, a []byte, ret rt.ReturnFunc) {
			n := 0
			if len(a) >= 2 {
				n = int(binary.LittleEndian.Uint16(a)) % 60000 // one coalesced write
			}
			ret(rt.ResultBytes(make([]byte, n)))
		},
		tTwice: func(s *rt.Session, a []byte, ret rt.ReturnFunc) {
			r := call(s, 0x10, a)
			if r.IsOutOfBandError() {
				ret(r)
				return
			}
			ret(call(s, 0x11, r.Bytes()))
		},
	}
}

// outcome of one input.
type outcome struct {
	err         error // the CA's terminal error
	notified    int32
	out         []byte
	allocated   uint64
	hangupOK    bool // a local disconnect happened (Hangup allowed)
	reportedErr []error
}

func runSession(tb target.T, data []byte) outcome {
	var m memconn.Mode
	if len(data) > 0 {
		m, data = memconn.ParseMode(data[0]), data[1:]
	}
	before := target.HeapAllocs()

	info, err := rt.NewProcessInfo("x86_64-pc-linux-gnu", 4096, "")
	if err != nil {
		tb.Fatal(err)
	}
	runner := rt.NewGoRunner(2)
	var o outcome
	var repMu sync.Mutex
	s := rt.NewSession(info, runner, func(_ *rt.Session, err error) {
		repMu.Lock()
		o.reportedErr = append(o.reportedErr, err)
		repMu.Unlock()
	})
	var notified atomic.Int32
	s.SetOnDisconnect(func(error) { notified.Add(1) })
	fns := wrappers()
	s.SetUnknownTargetHandler(func(s *rt.Session, target sps.Addr, args []byte, ret rt.ReturnFunc) {
		if target < nTargets {
			fns[target](s, args, ret)
			return
		}
		ret(rt.OutOfBandResult("fuzz: no such target"))
	})

	conn := memconn.New(data, m)
	ca := simpleremote.New(conn, &simpleremote.Options{MaxMessageSize: maxMsg, ReadBufferSize: 4096, HangupTimeout: time.Second})
	if err := s.Attach(ca, nil); err != nil {
		tb.Fatalf("attach: %v", err)
	}
	if m.Detach {
		s.Detach(nil)
		o.hangupOK = true
	}
	select {
	case <-ca.Done():
	case <-conn.Drained():
		s.Detach(nil)
		o.hangupOK = true
	case <-time.After(endTimeout):
		tb.Fatalf("session did not end within %v (mode %+v)", endTimeout, m)
	}
	select {
	case <-ca.Done():
	case <-time.After(endTimeout):
		tb.Fatalf("session did not end within %v after a local disconnect (mode %+v)", endTimeout, m)
	}
	closed := make(chan struct{})
	go func() { s.Close(); runner.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(endTimeout):
		tb.Fatalf("session shutdown hung (mode %+v)", m)
	}
	o.err = ca.Err()
	o.notified = notified.Load()
	o.out = conn.Output()
	o.allocated = target.HeapAllocs() - before
	return o
}

// inputFacts parses the input as the CA's reader would.
type inputFacts struct {
	calls      map[uint64]bool // SeqNos of CallWrappers before the first error
	ctlCalls   int             // calls to the controller they can make at most
	semantic   bool            // a Result or Setup appears (timing-dependent verdicts)
	hangup     bool            // a Hangup appears (orderly end there)
	readerErr  error           // the reader's verdict (nil: EOF)
	beforeStop int             // messages before the verdict
}

func parseInput(data []byte) inputFacts {
	f := inputFacts{calls: map[uint64]bool{}}
	if len(data) > 0 {
		data = data[1:]
	}
	r := simpleremote.NewReader(bytes.NewReader(data), maxMsg, 4096)
	for {
		h, _, err := r.ReadMsg()
		if err != nil {
			if err != io.EOF {
				f.readerErr = err
			}
			return f
		}
		f.beforeStop++
		switch h.Op {
		case simpleremote.OpCallWrapper:
			f.calls[h.SeqNo] = true
			switch h.Tag {
			case tNested:
				f.ctlCalls++
			case tTwice:
				f.ctlCalls += 2
			}
		case simpleremote.OpResult, simpleremote.OpSetup:
			f.semantic = true
		case simpleremote.OpHangup:
			f.hangup = true
			return f
		}
	}
}

func allocLimit(data []byte) uint64 { return uint64(allocPerByte*len(data) + allocSlack) }

func check(t target.T, data []byte, o outcome) {
	t.Helper()
	if o.notified != 1 {
		t.Fatalf("NotifyDisconnected ran %d times", o.notified)
	}
	if o.err != nil && !memconn.IsWireError(o.err) {
		t.Fatalf("terminal error %T %q is not a protocol error", o.err, o.err)
	}
	for _, err := range o.reportedErr {
		t.Errorf("error reported to the Session: %v", err)
	}
	if limit := allocLimit(data); o.allocated > limit {
		t.Fatalf("allocated %d bytes for a %d-byte input (limit %d)", o.allocated, len(data), limit)
	}
	f := parseInput(data)
	// Deterministic verdicts: with no Result or Setup in the stream and no
	// local disconnect, the CA must end exactly as its reader does.
	if !f.semantic && !o.hangupOK {
		want := f.readerErr
		if f.hangup {
			want = nil
		}
		if (want == nil) != (o.err == nil) || (want != nil && want.Error() != o.err.Error()) {
			t.Fatalf("terminal error %v, the stream's verdict is %v", o.err, want)
		}
	}
	checkOutput(t, o, f)
}

// checkOutput verifies the executor's output stream.
func checkOutput(t target.T, o outcome, f inputFacts) {
	t.Helper()
	execSeqs := map[uint64]bool{}
	err := memconn.CheckOutput(o.out, sps.SetupInfoCodec, o.hangupOK, func(h simpleremote.Header) error {
		switch {
		case h.Op == simpleremote.OpResult && !f.calls[h.SeqNo]:
			// The controller may reuse a SeqNo; each call is answered, so
			// duplicates are legitimate here.
			return fmt.Errorf("wirefuzz: Result for seq %d, which the controller never called", h.SeqNo)
		case h.Op == simpleremote.OpCallWrapper && execSeqs[h.SeqNo]:
			return fmt.Errorf("wirefuzz: executor reused call seq %d", h.SeqNo)
		case h.Op == simpleremote.OpCallWrapper:
			execSeqs[h.SeqNo] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Calls are numbered from 0 in the order they are made. A local
	// disconnect may overtake some (they are failed, not sent), which
	// leaves gaps; otherwise every number up to the last is sent.
	for seq := range execSeqs {
		if seq >= uint64(f.ctlCalls) {
			t.Fatalf("executor call seq %d, with at most %d calls to make", seq, f.ctlCalls)
		}
	}
	for i := range uint64(len(execSeqs)) {
		if !execSeqs[i] && !o.hangupOK {
			t.Fatalf("executor call seqs %v are not 0..%d", execSeqs, len(execSeqs)-1)
		}
	}
}

// Seeds returns the seed inputs of both targets.
func Seeds() [][]byte {
	var seeds [][]byte
	add := func(b []byte) { seeds = append(seeds, b) }
	u64 := func(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	session := cat(
		wiretest.CallFrame(0, tEcho, []byte("hello")),
		wiretest.CallFrame(1, tEmpty, nil),
		wiretest.CallFrame(2, tOOB, []byte{1}),
		wiretest.CallFrame(3, tBig, []byte{0x00, 0x10}),
		wiretest.CallFrame(4, 999, nil),
	)
	nested := cat(
		wiretest.CallFrame(0, tNested, append(u64(0x77), "x"...)),
		wiretest.CallFrame(1, tEcho, []byte("meanwhile")),
		wiretest.ResultFrame(0, []byte("resolved")),
	)
	twice := cat(
		wiretest.CallFrame(5, tTwice, []byte("a")),
		wiretest.ResultFrame(0, []byte("b")),
		wiretest.ResultFrame(1, []byte("c")),
	)
	fatal := [][]byte{
		wiretest.RawHeader(40, 3, 0, 0)[:20],                         // truncated header
		cat(wiretest.RawHeader(40, 3, 0, 0), []byte{1, 2}),           // truncated payload
		wiretest.RawHeader(16, 3, 0, 0),                              // size below the header
		wiretest.RawHeader(math.MaxUint64, 3, 0, 0),                  // size near 2^64
		wiretest.RawHeader(maxMsg+1, 2, 0, 0),                        // over the limit
		wiretest.RawHeader(900<<20, 3, 0, 0),                         // huge claim, then EOF
		cat(wiretest.RawHeader(32<<20, 3, 0, 0), []byte("abc")),      // large claim within the limit, 3 bytes
		wiretest.Frame(4, 0, 0, nil),                                 // unknown opcode
		wiretest.SetupFrame(sps.SetupInfo{Triple: "x", PageSize: 1}), // Setup from the controller
		wiretest.ResultFrame(7, nil),                                 // unknown seq
		cat(nested, wiretest.ResultFrame(0, nil)),                    // already answered
		wiretest.HangupFrame([]byte{9, 9}),                           // malformed Hangup: orderly
		cat(wiretest.HangupFrame(nil), session),                      // nothing after Hangup is read
	}
	for _, m := range []byte{0x00, 0x05, 0x80, 0x41, 0xc6} {
		add(append([]byte{m}, session...))
		add(append([]byte{m}, nested...))
		add(append([]byte{m}, twice...))
		for _, fc := range fatal {
			add(append([]byte{m}, cat(session, fc)...))
		}
	}
	// A Result that arrives well after the nested call it answers was
	// made (16 KiB read a byte at a time in between): the call is
	// pending, whatever the scheduling.
	add(append([]byte{0x00}, cat(
		wiretest.CallFrame(0, tNested, append(u64(0x77), "x"...)),
		wiretest.CallFrame(1, tEmpty, make([]byte, 16<<10)),
		wiretest.ResultFrame(0, []byte("resolved")),
	)...))
	// Payloads past payloadEager (64 KiB), read in 1 MiB chunks through a
	// 640-byte buffer: the first ends in a tail small enough for the
	// buffer, with the payload buffer still at its eager size; the second
	// grows the payload buffer while its bytes arrive.
	for _, n := range []int{64<<10 + 100, 64<<10 + 1000} {
		add(append([]byte{0x07}, wiretest.CallFrame(0, tEcho, bytes.Repeat([]byte{0xa5}, n))...))
	}
	// NewReader's default limit (FuzzFrames), stalling at the end or not.
	for _, m := range []byte{stockLimit, frameStall | stockLimit | 0x05} {
		add(append([]byte{m}, session...))
		add(append([]byte{m}, cat(session, wiretest.RawHeader(900<<20, 3, 0, 0))...))
		add(append([]byte{m}, cat(session, wiretest.RawHeader(maxMsg+1, 2, 0, 0))...))
	}
	add([]byte{})
	add([]byte{frameStall})
	return seeds
}

// Reader is FuzzReader: see the package documentation.
func Reader(t target.T, data []byte) {
	o := runSession(t, data)
	if o.allocated > allocLimit(data) {
		// The heap statistics are process-wide (the fuzzing engine
		// allocates too): confirm with a second run.
		o.allocated = min(o.allocated, runSession(t, data).allocated)
	}
	check(t, data, o)
}

// refParse is a deliberately simple reference framing parser: whole
// input in memory, no buffering.
func refParse(b []byte, max uint64) (hs []simpleremote.Header, ps [][]byte, verdict string) {
	for {
		if len(b) == 0 {
			return hs, ps, "EOF"
		}
		if len(b) < 32 {
			return hs, ps, simpleremote.MsgUnexpectedEOF
		}
		h := simpleremote.ParseHeader(b)
		b = b[32:]
		if h.Size < 32 {
			return hs, ps, simpleremote.MsgSizeTooSmall
		}
		if h.Size > max {
			return hs, ps, (&simpleremote.MessageTooLargeError{Size: h.Size, Limit: max}).Error()
		}
		n := h.Size - 32
		if uint64(len(b)) < n {
			return hs, ps, simpleremote.MsgUnexpectedEOF
		}
		if h.Op > 3 {
			return hs, ps, simpleremote.MsgUnexpectedOpcode
		}
		hs, ps = append(hs, h), append(ps, b[:n])
		b = b[n:]
	}
}

// stockLimit is a mode bit of FuzzFrames beyond memconn's: the Reader
// has NewReader's default MsgSize limit (DefaultMaxMessageSize) instead of
// the harness's. (Not its default 64 KiB buffer: allocating one per input
// would slow the target several-fold on those inputs.)
const stockLimit = 0x10

// frameStall are the mode bits with which FuzzFrames' stream stalls at its
// end: memconn's Hold bit and bit 6, a quarter of all modes rather than
// half. A stalled stream costs the Reader's 100 empty reads (maxEmptyReads),
// each a loop iteration of libFuzzer comparison hooks: with Hold alone,
// stalled inputs took 60% of the time of a libFuzzer corpus's replay.
const frameStall = 0xc0

// Frames is FuzzFrames: it compares the buffered Reader with refParse
// over arbitrary streams and read patterns. With frameStall the stream
// stalls at its end (Read returns 0, nil from then on) instead of ending
// in EOF: where the reference would see the end, the Reader gives up with
// io.ErrNoProgress.
// Every header the Reader accepts is the reference's (so one of the four
// opcodes: Opcode.String's names are unit-tested) with a PayloadLen of its
// payload's length, and MaxMessageSize is the limit it enforces; after an
// error, ReadMsg returns the same error.
func Frames(t target.T, data []byte) {
	var m memconn.Mode
	var stock bool
	if len(data) > 0 {
		m, stock = memconn.ParseMode(data[0]), data[0]&stockLimit != 0
		m.Hold = data[0]&frameStall == frameStall
		data = data[1:]
	}
	limit := uint64(maxMsg)
	if stock {
		limit = simpleremote.DefaultMaxMessageSize
	}
	wantH, wantP, verdict := refParse(data, limit)
	if m.Hold && (verdict == "EOF" || verdict == simpleremote.MsgUnexpectedEOF) {
		verdict = io.ErrNoProgress.Error()
	}
	parseFrames(t, data, m, stock, wantH, wantP, verdict)
	// The count since the last input (one heap read an input) includes
	// refParse's and the engine's allocations, and the heap statistics
	// are process-wide: above the limit, count the least of three more
	// runs of parseFrames alone. A payload past payloadEager (64 KiB) whose
	// claim exceeds what arrived grows its buffer, as bytes arrive,
	// to at most max(4 × its size, received + 1 MiB) (reader.go):
	// its buffers sum to under 5⅓ × received + 1 MiB.
	limit = uint64(4*len(data) + 256<<10)
	if len(data) > 64<<10 {
		limit += uint64(2*len(data) + 1<<20)
	}
	allocated := framesAllocs.Since()
	for i := 0; i < 3 && allocated > limit; i++ {
		before := target.HeapAllocs()
		parseFrames(t, data, m, stock, wantH, wantP, verdict)
		allocated = min(allocated, target.HeapAllocs()-before)
	}
	if allocated > limit {
		t.Fatalf("allocated %d bytes for %d input bytes", allocated, len(data))
	}
}

// framesAllocs counts Frames' allocation with one heap read per input.
var framesAllocs target.AllocMark

func parseFrames(t target.T, data []byte, m memconn.Mode, stock bool, wantH []simpleremote.Header, wantP [][]byte, verdict string) {
	bufSize := 64 + m.Chunk%1000
	in := newChunked(data, m, bufSize, wantH)
	r, limit := simpleremote.NewReader(in, maxMsg, bufSize), uint64(maxMsg)
	if stock {
		r, limit = simpleremote.NewReader(in, 0, bufSize), simpleremote.DefaultMaxMessageSize
	}
	if r.MaxMessageSize() != limit {
		t.Fatalf("MaxMessageSize %d, want %d", r.MaxMessageSize(), limit)
	}
	for i := 0; ; i++ {
		h, p, err := r.ReadMsg()
		if err != nil {
			got := "EOF"
			if err != io.EOF {
				got = err.Error()
			}
			if got != verdict || i != len(wantH) {
				t.Fatalf("after %d messages: %q; reference: %q after %d", i, got, verdict, len(wantH))
			}
			if _, _, again := r.ReadMsg(); again != err {
				t.Fatalf("ReadMsg after %q returned %v", err, again)
			}
			checkRejected(t, h, err)
			return
		}
		if i >= len(wantH) || h != wantH[i] || !bytes.Equal(p, wantP[i]) || (len(p) == 0) != (p == nil) {
			t.Fatalf("message %d differs from the reference", i)
		}
		if h.PayloadLen() != uint64(len(p)) {
			t.Fatalf("message %d: PayloadLen %d of %d bytes", i, h.PayloadLen(), len(p))
		}
	}
}

// checkRejected checks the header ReadMsg returns with a header-level
// error: too small, PayloadLen 0; an unexpected opcode, one without a
// name, which the header's text shows.
func checkRejected(t target.T, h simpleremote.Header, err error) {
	t.Helper()
	switch err {
	case simpleremote.ErrMessageTooSmall:
		if h.Size >= simpleremote.HeaderSize || h.PayloadLen() != 0 {
			t.Fatalf("too small: size %d, PayloadLen %d", h.Size, h.PayloadLen())
		}
	case simpleremote.ErrUnexpectedOpcode:
		name, text := h.Op.String(), h.String()
		if h.Op.Valid() || !strings.HasPrefix(name, "Opcode(") ||
			!strings.HasPrefix(text, name) || !strings.HasPrefix(text[len(name):], " seq=") {
			t.Fatalf("unexpected opcode %d: Valid %t, named %q, header %q", uint64(h.Op), h.Op.Valid(), name, text)
		}
	}
}

// chunked serves b in reads of n bytes near the offsets where the Reader
// changes path, and in whole multiples of n between them, then io.EOF, or
// with stall set nothing: 0, nil (a stalled peer, as io.Reader permits).
//
// The offsets (marks) are, per message: its start, its header's end, the
// switch to the Reader's small-tail path (bufSize/2 before its end, for a
// longer payload); and for the unparsed rest its start, its header's end
// and the end of input. Near a mark means within three chunks of it on
// either side. A skip is a multiple of n, so reads stay in step with
// reads of n all the way (unless the Reader's room cuts one short).
//
// Between marks the Reader runs one loop iteration again and again, and
// under libFuzzer each iteration's comparisons cost a call into C: one-
// byte reads all the way made an 8 KiB input take milliseconds. Reads of
// n everywhere are covered by the Reader's own tests (iotest.OneByteReader,
// HalfReader). With n >= bufSize every read is n bytes.
type chunked struct {
	b     []byte
	n     int
	stall bool
	off   int   // bytes served
	marks []int // ascending; the first is the next one not yet passed
	near  int   // reads are n bytes within near of a mark
}

// newChunked serves data for a Reader of bufSize bytes whose reference
// parse found hs.
func newChunked(data []byte, m memconn.Mode, bufSize int, hs []simpleremote.Header) *chunked {
	c := &chunked{b: data, n: m.Chunk, stall: m.Hold}
	if c.n >= bufSize {
		return c
	}
	c.near = 3 * c.n
	tail := bufSize / 2
	c.marks = make([]int, 0, 3*len(hs)+3)
	start := 0
	for _, h := range hs { // accepted: start+h.Size <= len(data)
		end := start + int(h.Size)
		c.marks = append(c.marks, start, start+simpleremote.HeaderSize)
		if end-tail > start+simpleremote.HeaderSize {
			c.marks = append(c.marks, end-tail)
		}
		start = end
	}
	c.marks = append(c.marks, start, min(start+simpleremote.HeaderSize, len(data)), len(data))
	return c
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		if c.stall {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := c.n
	for len(c.marks) > 0 && c.marks[0]+c.near <= c.off {
		c.marks = c.marks[1:]
	}
	if len(c.marks) > 0 {
		if gap := c.marks[0] - c.near - c.off; gap > n {
			n = gap - gap%n // to the next mark's reads, in step with them
		}
	}
	n = copy(p[:min(len(p), n)], c.b)
	c.b = c.b[n:]
	c.off += n
	return n, nil
}
