package simpleremote

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"testing/iotest"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/sps"
)

func hdr(size, op, seq, tag uint64) []byte {
	return AppendHeader(nil, Header{Size: size, Op: Opcode(op), SeqNo: seq, Tag: sps.Addr(tag)})
}

func cat(bs ...[]byte) []byte { return bytes.Join(bs, nil) }

func TestHeaderRoundTrip(t *testing.T) {
	// The example of docs/protocol.md §1.2: Result for seq 5 with 8 payload bytes.
	want := []byte{
		0x28, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,
		5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	}
	h := Header{Size: 40, Op: OpResult, SeqNo: 5}
	assert.Equal(t, want, AppendHeader(nil, h))
	assert.Equal(t, h, ParseHeader(want))
	var b [HeaderSize]byte
	PutHeader(b[:], h)
	assert.Equal(t, want, b[:])
	assert.Equal(t, uint64(8), h.PayloadLen())
	assert.Equal(t, "Result", OpResult.String())
	assert.Equal(t, "Opcode(9)", Opcode(9).String())
}

// TestReaderFatal covers every fatal-input rule of docs/protocol.md §8.2 at the
// framing layer, with the stock texts.
func TestReaderFatal(t *testing.T) {
	valid := AppendFrame(nil, OpCallWrapper, 1, 0x1000, []byte("abc"))
	for _, tc := range []struct {
		name   string
		in     []byte
		max    uint64
		nGood  int // valid messages before the error
		want   error
		wantIs error
		text   string
	}{
		{name: "clean EOF", in: nil, want: io.EOF},
		{name: "clean EOF after message", in: valid, nGood: 1, want: io.EOF},
		{name: "truncated header", in: valid[:20], want: ErrUnexpectedEOF, text: "Unexpected end-of-file"},
		{name: "truncated header after message", in: cat(valid, valid[:31]), nGood: 1, want: ErrUnexpectedEOF},
		{name: "truncated payload", in: valid[:34], want: ErrUnexpectedEOF},
		{name: "header only, payload claimed", in: hdr(1000, 3, 0, 0), want: ErrUnexpectedEOF},
		{name: "size 0", in: hdr(0, 3, 0, 0), want: ErrMessageTooSmall, text: "Message size too small"},
		{name: "size 16", in: hdr(16, 3, 0, 0), want: ErrMessageTooSmall},
		{name: "size 31", in: cat(hdr(31, 2, 0, 0), []byte{1, 2, 3}), want: ErrMessageTooSmall},
		{name: "size near 2^64", in: hdr(math.MaxUint64-5, 3, 0, 0), wantIs: ErrMessageTooLarge,
			text: "Message size 18446744073709551610 exceeds the limit of 1073741824 bytes"},
		{name: "size 2^63", in: hdr(1<<63, 3, 0, 0), wantIs: ErrMessageTooLarge},
		{name: "size over limit", in: hdr(1<<20+33, 3, 0, 0), max: 1 << 20, wantIs: ErrMessageTooLarge,
			text: "Message size 1048609 exceeds the limit of 1048576 bytes"},
		{name: "size at limit", in: cat(hdr(64, 3, 0, 0), make([]byte, 32)), max: 64, nGood: 1, want: io.EOF},
		{name: "opcode 4", in: AppendFrame(nil, 4, 0, 0, nil), want: ErrUnexpectedOpcode, text: "Unexpected opcode"},
		{name: "opcode 256+3", in: AppendFrame(nil, 259, 0, 0, nil), want: ErrUnexpectedOpcode},
		{name: "opcode max", in: AppendFrame(nil, math.MaxUint64, 0, 0, []byte{1}), want: ErrUnexpectedOpcode},
		{name: "bad opcode, truncated payload", in: cat(hdr(40, 9, 0, 0), []byte{1}), want: ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, mode := range []string{"whole", "byte", "half", "dataerr"} {
				var src io.Reader = bytes.NewReader(tc.in)
				switch mode {
				case "byte":
					src = iotest.OneByteReader(src)
				case "half":
					src = iotest.HalfReader(src)
				case "dataerr":
					src = iotest.DataErrReader(src)
				}
				r := NewReader(src, tc.max, 40) // tiny buffer: exercise refills
				for i := 0; i < tc.nGood; i++ {
					h, p, err := r.ReadMsg()
					require.NoError(t, err, mode)
					assert.Equal(t, uint64(len(p)), h.PayloadLen())
				}
				_, _, err := r.ReadMsg()
				if tc.want != nil {
					assert.Same(t, tc.want, err, "%s: %v", mode, err)
				}
				if tc.wantIs != nil {
					assert.ErrorIs(t, err, tc.wantIs, mode)
				}
				if tc.text != "" {
					assert.EqualError(t, err, tc.text, mode)
				}
				_, _, err2 := r.ReadMsg()
				assert.Equal(t, err, err2, "sticky")
			}
		})
	}
}

func TestReaderPipelined(t *testing.T) {
	var stream []byte
	var want [][]byte
	for i := range 200 {
		p := bytes.Repeat([]byte{byte(i)}, i*37%300)
		want = append(want, p)
		stream = AppendFrame(stream, OpCallWrapper, uint64(i), sps.Addr(i*8), p)
	}
	cr := &countingReader{r: bytes.NewReader(stream)}
	r := NewReader(cr, 0, 0)
	for i := range 200 {
		h, p, err := r.ReadMsg()
		require.NoError(t, err)
		assert.Equal(t, uint64(i), h.SeqNo)
		assert.Equal(t, sps.Addr(i*8), h.Tag)
		if len(want[i]) == 0 {
			assert.Nil(t, p)
		} else {
			assert.Equal(t, want[i], p)
		}
	}
	_, _, err := r.ReadMsg()
	assert.Equal(t, io.EOF, err)
	// 200 small messages (~35 KiB) need one read, plus the EOF read.
	assert.LessOrEqual(t, cr.n, 2)
}

type readFunc func([]byte) (int, error)

func (f readFunc) Read(b []byte) (int, error) { return f(b) }

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(b []byte) (int, error) {
	c.n++
	return c.r.Read(b)
}

// TestReaderPayloadOwnership: a payload is never overwritten by later
// reads (the Session keeps it).
func TestReaderPayloadOwnership(t *testing.T) {
	var stream []byte
	for i := range 50 {
		stream = AppendFrame(stream, OpResult, uint64(i), 0, bytes.Repeat([]byte{byte(i)}, 100))
	}
	r := NewReader(bytes.NewReader(stream), 0, 64)
	var got [][]byte
	for {
		_, p, err := r.ReadMsg()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		got = append(got, p)
	}
	for i, p := range got {
		assert.Equal(t, bytes.Repeat([]byte{byte(i)}, 100), p)
	}
}

// TestPayloadBufPageOffset: a large payload buffer starts HeaderSize
// bytes into a page, as the payload lies in a pipe after its header.
func TestPayloadBufPageOffset(t *testing.T) {
	for _, c := range []int{payloadAlignMin, 1 << 20, 5<<20 + 3} {
		b := payloadBuf(7, c)
		assert.Equal(t, 7, len(b))
		assert.Equal(t, c, cap(b))
		assert.Equal(t, uintptr(HeaderSize), uintptr(unsafe.Pointer(unsafe.SliceData(b)))%pageSize, "capacity %d", c)
	}
	assert.Equal(t, 100, cap(payloadBuf(0, 100)))
	// The reader's own payloads, read straight from a stream.
	p := make([]byte, 1<<20)
	r := NewReader(bytes.NewReader(AppendFrame(nil, OpCallWrapper, 1, 2, p)), 0, 0)
	_, got, err := r.ReadMsg()
	require.NoError(t, err)
	assert.Equal(t, uintptr(HeaderSize), uintptr(unsafe.Pointer(unsafe.SliceData(got)))%pageSize)
}

// TestReaderBigPayload reads large payloads through every read pattern.
func TestReaderBigPayload(t *testing.T) {
	for _, n := range []int{payloadEager - 1, payloadEager, payloadEager + 1, 1 << 20, 5<<20 + 3} {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(i * 7)
		}
		stream := cat(AppendFrame(nil, OpCallWrapper, 1, 2, p), AppendFrame(nil, OpResult, 2, 0, []byte{9}))
		for _, mode := range []string{"whole", "half", "chunky"} {
			var src io.Reader = bytes.NewReader(stream)
			switch mode {
			case "half":
				src = iotest.HalfReader(src)
			case "chunky":
				src = &chunkReader{r: src, n: 4093}
			}
			r := NewReader(src, 0, 0)
			_, got, err := r.ReadMsg()
			require.NoError(t, err)
			require.True(t, bytes.Equal(p, got), "n=%d %s", n, mode)
			h, got2, err := r.ReadMsg()
			require.NoError(t, err)
			assert.Equal(t, uint64(2), h.SeqNo)
			assert.Equal(t, []byte{9}, got2)
		}
	}
}

type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(b []byte) (int, error) {
	if len(b) > c.n {
		b = b[:c.n]
	}
	return c.r.Read(b)
}

// TestReaderAllocationBounded: a header claiming a huge payload followed
// by end-of-file allocates only a bounded amount, never the claimed size.
func TestReaderAllocationBounded(t *testing.T) {
	for _, tc := range []struct {
		name    string
		claim   uint64
		arrived int
		bound   uint64
	}{
		{"900MiB claim, nothing", 900 << 20, 0, 200 << 10},
		{"900MiB claim, 1KiB", 900 << 20, 1 << 10, 200 << 10},
		{"900MiB claim, 3MiB", 900 << 20, 3 << 20, 20 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stream := cat(hdr(tc.claim+HeaderSize, 3, 0, 0), make([]byte, tc.arrived))
			var before, after runtime.MemStats
			r := NewReader(bytes.NewReader(stream), 0, 0)
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, _, err := r.ReadMsg()
			runtime.ReadMemStats(&after)
			assert.Same(t, ErrUnexpectedEOF, err)
			got := after.TotalAlloc - before.TotalAlloc
			assert.LessOrEqual(t, got, tc.bound, "allocated %d bytes", got)
		})
	}
}

func TestReaderIOErrorAndInvalidCounts(t *testing.T) {
	r := NewReader(readFunc(func([]byte) (int, error) { return 0, syscall.EBADF }), 0, 0)
	_, _, err := r.ReadMsg()
	assert.EqualError(t, err, "Bad file descriptor")
	assert.ErrorIs(t, err, syscall.EBADF)

	r = NewReader(readFunc(func(b []byte) (int, error) { return len(b) + 1, nil }), 0, 0)
	_, _, err = r.ReadMsg()
	assert.ErrorContains(t, err, "invalid count")

	r = NewReader(readFunc(func([]byte) (int, error) { return 0, nil }), 0, 0)
	_, _, err = r.ReadMsg()
	assert.ErrorIs(t, err, io.ErrNoProgress)
	var ioErr *IOError
	assert.ErrorAs(t, err, &ioErr)
}

// TestReaderEmptyReadsInARow: only maxEmptyReads empty reads in a row end
// the stream (as in bufio); a reader that makes progress between runs of
// them is read to the end, through the read-ahead buffer (the header)
// and a large payload's direct reads.
func TestReaderEmptyReadsInARow(t *testing.T) {
	payload := bytes.Repeat([]byte{7}, 200<<10)
	stream := cat(hdr(uint64(HeaderSize+len(payload)), 3, 0, 0), payload)
	empties := 0
	r := NewReader(readFunc(func(b []byte) (int, error) {
		if len(stream) == 0 {
			return 0, io.EOF
		}
		if empties < maxEmptyReads-1 {
			empties++
			return 0, nil
		}
		empties = 0
		n := copy(b[:min(len(b), 1000)], stream)
		stream = stream[n:]
		return n, nil
	}), 0, 64)
	_, p, err := r.ReadMsg()
	require.NoError(t, err)
	assert.Equal(t, payload, p)
	_, _, err = r.ReadMsg()
	assert.Same(t, io.EOF, err)
}

func TestStrerror(t *testing.T) {
	for errno, want := range map[syscall.Errno]string{
		syscall.EPIPE:      "Broken pipe",
		syscall.EBADF:      "Bad file descriptor",
		syscall.ECONNRESET: "Connection reset by peer",
		syscall.EIO:        "Input/output error",
		syscall.EAGAIN:     "Resource temporarily unavailable",
		syscall.EINVAL:     "Invalid argument",
		41:                 "Unknown error 41",
		133:                "Memory page has hardware error",
	} {
		assert.Equal(t, want, Strerror(errno), "errno %d", int(errno))
	}
	e := &IOError{Op: "write", Err: &os.PathError{Op: "write", Path: "|1", Err: syscall.EPIPE}}
	assert.EqualError(t, e, "Broken pipe")
	assert.ErrorIs(t, e, syscall.EPIPE)
	assert.EqualError(t, &IOError{Op: "read", Err: errors.New("x")}, "x")
}

// shortWriter accepts at most n bytes per Write.
type shortWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	n      int
	writes int
}

func (w *shortWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	if len(b) > w.n {
		b = b[:w.n]
		w.buf.Write(b)
		return len(b), io.ErrShortWrite
	}
	w.buf.Write(b)
	return len(b), nil
}

// TestWriterFallback: without a raw descriptor a small message is one
// Write of a contiguous buffer.
func TestWriterFallback(t *testing.T) {
	var buf countingWriter
	w := NewWriter(&buf)
	require.False(t, w.Vectored())
	require.NoError(t, w.WriteMsg(OpResult, 7, 0, []byte("hello")))
	assert.Equal(t, 1, buf.n)
	assert.Equal(t, AppendFrame(nil, OpResult, 7, 0, []byte("hello")), buf.Bytes())

	big := make([]byte, coalesceMax)
	require.NoError(t, w.WriteMsg(OpResult, 8, 0, big))
	assert.Equal(t, 3, buf.n) // header, then payload: no 64 KiB copy
	assert.Equal(t, AppendFrame(AppendFrame(nil, OpResult, 7, 0, []byte("hello")), OpResult, 8, 0, big), buf.Bytes())

	// A failing writer makes the error sticky and strerror-worded.
	sw := &shortWriter{n: 10}
	w = NewWriter(sw)
	err := w.WriteMsg(OpResult, 1, 0, nil)
	require.Error(t, err)
	assert.Equal(t, err, w.WriteMsg(OpResult, 2, 0, nil))
}

// TestWriterLast: after WriteLast nothing more is written, whether by
// WriteMsg or WriteRaw, and the refusal is not a write error.
func TestWriterLast(t *testing.T) {
	var buf countingWriter
	w := NewWriter(&buf)
	require.NoError(t, w.WriteLast(OpHangup, 0, 0, []byte{0}))
	assert.ErrorIs(t, w.WriteMsg(OpResult, 1, 0, []byte("late")), ErrWriterSealed)
	assert.ErrorIs(t, w.WriteRaw([]byte("raw")), ErrWriterSealed)
	assert.ErrorIs(t, w.WriteLast(OpHangup, 0, 0, nil), ErrWriterSealed)
	assert.Equal(t, AppendFrame(nil, OpHangup, 0, 0, []byte{0}), buf.Bytes())
	var ioe *IOError
	assert.False(t, errors.As(w.WriteMsg(OpResult, 2, 0, nil), &ioe))
}

type countingWriter struct {
	bytes.Buffer
	n int
}

func (c *countingWriter) Write(b []byte) (int, error) {
	c.n++
	return c.Buffer.Write(b)
}

func newPipe(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = r.Close(), w.Close() })
	return r, w
}

// TestWriterVectoredPartial: a message far larger than the pipe buffer
// goes out with writev in parts (EAGAIN parks in the poller) and is
// reassembled intact, header first.
func TestWriterVectoredPartial(t *testing.T) {
	r, w := newPipe(t)
	wr := NewWriter(w)
	require.True(t, wr.Vectored())
	p := make([]byte, 8<<20+5)
	for i := range p {
		p[i] = byte(i >> 3)
	}
	errc := make(chan error, 1)
	go func() { errc <- wr.WriteMsg(OpResult, 3, 0, p) }()
	rd := NewReader(&chunkReader{r: r, n: 1000}, 0, 0)
	h, got, err := rd.ReadMsg()
	require.NoError(t, err)
	require.NoError(t, <-errc)
	assert.Equal(t, Header{Size: uint64(len(p)) + HeaderSize, Op: OpResult, SeqNo: 3}, h)
	assert.True(t, bytes.Equal(p, got))
}

// TestWriterSmallMessageOneSyscall: a small message is one atomic pipe
// write (writes <= PIPE_BUF are atomic), seen as one read by the peer.
func TestWriterSmallMessageOneSyscall(t *testing.T) {
	r, w := newPipe(t)
	wr := NewWriter(w)
	require.NoError(t, wr.WriteMsg(OpCallWrapper, 1, 0x10, []byte("0123456789")))
	buf := make([]byte, 4096)
	n, err := r.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, HeaderSize+10, n)
}

// TestWriterConcurrentNoInterleave hammers one Writer from many
// goroutines over a real pipe; the reader checks every frame's integrity.
func TestWriterConcurrentNoInterleave(t *testing.T) {
	for _, kind := range []string{"writev", "fallback"} {
		t.Run(kind, func(t *testing.T) {
			r, w := newPipe(t)
			var dst io.Writer = w
			if kind == "fallback" {
				dst = struct{ io.Writer }{w} // hide SyscallConn
			}
			wr := NewWriter(dst)
			const goroutines, perG = 32, 200
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range perG {
						n := (g*131 + i*17) % 5000
						if i%50 == 0 {
							n = 200 << 10 // some larger than the pipe buffer
						}
						p := bytes.Repeat([]byte{byte(g)}, n)
						if err := wr.WriteMsg(OpCallWrapper, uint64(i), sps.Addr(g), p); err != nil {
							t.Error(err)
							return
						}
					}
				}()
			}
			go func() { wg.Wait(); _ = w.Close() }()
			rd := NewReader(r, 0, 0)
			next := make([]uint64, goroutines)
			count := 0
			for {
				h, p, err := rd.ReadMsg()
				if err == io.EOF {
					break
				}
				require.NoError(t, err)
				g := int(h.Tag)
				require.Less(t, g, goroutines)
				require.Equal(t, next[g], h.SeqNo, "per-goroutine order")
				next[g]++
				for _, c := range p {
					if c != byte(g) {
						t.Fatalf("frame from goroutine %d corrupted", g)
					}
				}
				count++
			}
			assert.Equal(t, goroutines*perG, count)
		})
	}
}

// TestWriterBrokenPipe: writing to a pipe whose reader is gone fails
// cleanly with EPIPE ("Broken pipe"), also in the middle of a large
// message, and does not hang.
func TestWriterBrokenPipe(t *testing.T) {
	r, w := newPipe(t)
	wr := NewWriter(w)
	p := make([]byte, 4<<20)
	errc := make(chan error, 1)
	go func() { errc <- wr.WriteMsg(OpResult, 1, 0, p) }()
	buf := make([]byte, 10000)
	_, err := io.ReadFull(r, buf) // the write is under way
	require.NoError(t, err)
	require.NoError(t, r.Close())
	select {
	case err := <-errc:
		assert.EqualError(t, err, "Broken pipe")
		assert.ErrorIs(t, err, syscall.EPIPE)
	case <-time.After(10 * time.Second):
		t.Fatal("write did not fail")
	}
}

// lazyWriter takes at most n bytes per Write and reports no error: a
// broken io.Writer whose short writes must still be reassembled.
type lazyWriter struct {
	bytes.Buffer
	n int
}

func (l *lazyWriter) Write(b []byte) (int, error) {
	return l.Buffer.Write(b[:min(len(b), l.n)])
}

func TestWriterShortWritesReassembled(t *testing.T) {
	lw := &lazyWriter{n: 7}
	w := NewWriter(lw)
	p := bytes.Repeat([]byte("xyz"), 30000) // > coalesceMax: header, then payload
	require.NoError(t, w.WriteMsg(OpCallWrapper, 1, 2, []byte("small")))
	require.NoError(t, w.WriteMsg(OpResult, 3, 0, p))
	want := AppendFrame(AppendFrame(nil, OpCallWrapper, 1, 2, []byte("small")), OpResult, 3, 0, p)
	assert.Equal(t, want, lw.Bytes())
}

// TestAllocs pins the allocation-free paths: sending a message, and
// reading one with an empty payload; a non-empty payload costs exactly
// its own buffer.
func TestAllocs(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	wr := NewWriter(w)
	payload := make([]byte, 100)
	if n := testing.AllocsPerRun(200, func() {
		if err := wr.WriteMsg(OpResult, 1, 0, payload); err != nil { // 201 x 132 B fit the pipe
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("WriteMsg (writev): %v allocs per message", n)
	}
	var sink bytes.Buffer
	sink.Grow(1 << 20)
	fb := NewWriter(&sink)
	if n := testing.AllocsPerRun(200, func() {
		sink.Reset()
		if err := fb.WriteMsg(OpResult, 1, 0, payload); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("WriteMsg (coalesced): %v allocs per message", n)
	}

	empty := AppendFrame(nil, OpResult, 9, 0, nil)
	one := AppendFrame(nil, OpCallWrapper, 9, 5, payload)
	var src bytes.Reader
	rd := NewReader(&src, 0, 0)
	for _, tc := range []struct {
		frame []byte
		want  float64
	}{{empty, 0}, {one, 1}} {
		if n := testing.AllocsPerRun(200, func() {
			src.Reset(tc.frame)
			if _, _, err := rd.ReadMsg(); err != nil {
				t.Fatal(err)
			}
		}); n != tc.want {
			t.Errorf("ReadMsg of a %d-byte message: %v allocs, want %v", len(tc.frame), n, tc.want)
		}
	}
}
