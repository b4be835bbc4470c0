package simpleremote

import (
	"errors"
	"io"
	"math"
	"unsafe"
)

const (
	// DefaultReadBufferSize is the read-ahead buffer size.
	DefaultReadBufferSize = 64 << 10

	// payloadEager is how much of a payload is allocated before its bytes
	// arrive; beyond it the buffer grows only as bytes arrive.
	payloadEager = 64 << 10
	// A full buffer grows to min(claimed, max(payloadGrowth × size,
	// received + payloadSlack)).
	payloadGrowth = 4
	payloadSlack  = 1 << 20

	// maxEmptyReads bounds a misbehaving io.Reader that returns 0, nil.
	maxEmptyReads = 100
)

// Reader reads framed messages from a byte stream and enforces the
// fatal-input rules of docs/protocol.md §1.2 and §8.2: io.EOF at a
// message boundary, ErrUnexpectedEOF, ErrMessageTooSmall (before the
// payload), *MessageTooLargeError, ErrUnexpectedOpcode (after the
// payload) and *IOError. Which opcodes each side may send is the caller's
// business. One goroutine reads.
type Reader struct {
	r      io.Reader
	buf    []byte // allocated at the first read: a CA's comes after its Setup
	size   int    // of buf
	lo, hi int    // buffered, unconsumed bytes are buf[lo:hi]
	max    uint64
	err    error        // sticky
	pool   *payloadPool // the CA's recycled payload buffers, or nil
	direct directSink   // the CA's direct writes (readDirect), or nil
}

// NewReader returns a Reader over r. maxMsgSize bounds MsgSize (0 means
// DefaultMaxMessageSize; values above math.MaxInt are clamped) and
// bufSize is the read-ahead buffer size (0 means DefaultReadBufferSize;
// at least HeaderSize is used).
func NewReader(r io.Reader, maxMsgSize uint64, bufSize int) *Reader {
	if maxMsgSize == 0 {
		maxMsgSize = DefaultMaxMessageSize
	}
	maxMsgSize = min(maxMsgSize, math.MaxInt)
	if bufSize <= 0 {
		bufSize = DefaultReadBufferSize
	}
	bufSize = max(bufSize, HeaderSize)
	return &Reader{r: r, size: bufSize, max: maxMsgSize}
}

// MaxMessageSize returns the MsgSize limit.
func (r *Reader) MaxMessageSize() uint64 { return r.max }

// ReadMsg reads the next message. The payload (nil when empty) is the
// caller's: fresh, or recycled from a CA's pool. After an error every
// later call returns the same error.
func (r *Reader) ReadMsg() (Header, []byte, error) {
	h, p, _, err := r.next()
	return h, p, err
}

// next is ReadMsg; direct reports a message readDirect took (its payload
// is nil), which only a Reader with a directSink does.
func (r *Reader) next() (h Header, p []byte, direct bool, err error) {
	if r.err != nil {
		return Header{}, nil, false, r.err
	}
	h, p, direct, err = r.readMsg()
	if err != nil {
		r.err = err
	}
	return h, p, direct, err
}

func (r *Reader) readMsg() (Header, []byte, bool, error) {
	if r.buf == nil {
		r.buf = make([]byte, r.size)
	}
	if err := r.fill(HeaderSize, true); err != nil {
		return Header{}, nil, false, err
	}
	h := ParseHeader(r.buf[r.lo:])
	r.lo += HeaderSize
	if h.Size < HeaderSize {
		return h, nil, false, ErrMessageTooSmall
	}
	if h.Size > r.max {
		return h, nil, false, &MessageTooLargeError{Size: h.Size, Limit: r.max}
	}
	if r.direct != nil && h.Op == OpCallWrapper && h.Size-HeaderSize >= directMin {
		if taken, err := r.readDirect(h); taken || err != nil {
			return h, nil, taken, err
		}
	}
	p, err := r.readPayload(int(h.Size - HeaderSize))
	if err != nil {
		return h, nil, false, err
	}
	if !h.Op.Valid() {
		return h, nil, false, ErrUnexpectedOpcode
	}
	return h, p, false, nil
}

// fill makes at least n bytes (n <= len(buf)) available in buf[lo:hi].
// With atBoundary, an end of input before any byte of them is io.EOF.
func (r *Reader) fill(n int, atBoundary bool) error {
	if r.hi-r.lo >= n {
		return nil
	}
	if r.lo == r.hi {
		r.lo, r.hi = 0, 0
	} else if len(r.buf)-r.lo < n {
		r.hi = copy(r.buf, r.buf[r.lo:r.hi])
		r.lo = 0
	}
	for { // fewer than n bytes: checked above and after each read
		m, err := r.r.Read(r.buf[r.hi:])
		if uint(m)-1 >= uint(len(r.buf)-r.hi) { // 0, negative or past the room
			m, err = r.readAgain(r.buf[r.hi:], m, err)
		}
		r.hi += m
		if r.hi-r.lo >= n {
			return nil // enough; a simultaneous error shows up on the next read
		}
		if err != nil {
			return r.readErr(err, atBoundary && r.hi == r.lo)
		}
	}
}

var errInvalidCount = errors.New("simpleremote: reader returned an invalid count")

// readAgain takes over from a Read into b (never empty) that returned a
// count outside 1..len(b): it retries a read of 0, nil (an io.Reader may),
// up to maxEmptyReads in a row, as bufio does, then returns
// io.ErrNoProgress; a count outside b is errInvalidCount, with no bytes.
// The callers test the count with one comparison (uint(m)-1 >=
// uint(len(b))): under libFuzzer each costs a call into C.
func (r *Reader) readAgain(b []byte, m int, err error) (int, error) {
	for empty := 1; m == 0 && err == nil; empty++ {
		if empty >= maxEmptyReads {
			return 0, io.ErrNoProgress
		}
		m, err = r.r.Read(b)
	}
	if uint(m) > uint(len(b)) { // or negative
		return 0, errInvalidCount
	}
	return m, err
}

// readErr maps a read error: EOF is clean only at a message boundary.
func (r *Reader) readErr(err error, clean bool) error {
	if errors.Is(err, io.EOF) {
		if clean {
			return io.EOF
		}
		return ErrUnexpectedEOF
	}
	return &IOError{Op: "read", Err: err}
}

// readPayload reads an n-byte payload into a fresh or pooled slice: large
// ones straight, small ones through the read-ahead buffer. A fresh buffer
// is rounded up to its pool size class.
func (r *Reader) readPayload(n int) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	var p []byte
	if r.pool != nil {
		p = r.pool.get(n) // cap >= n: already allocated, so no untrusted sizing
	}
	avail := r.hi - r.lo
	if avail >= n {
		if p == nil {
			p = make([]byte, n, r.roundCap(n))
		}
		p = p[:n]
		copy(p, r.buf[r.lo:])
		r.lo += n
		return p, nil
	}
	// The size is only a claim: allocate a bounded amount, grow as bytes
	// arrive.
	if p == nil {
		p = payloadBuf(0, r.growCap(n, max(avail, payloadEager)))
	}
	p = append(p[:0], r.buf[r.lo:r.hi]...)
	r.lo, r.hi = 0, 0
	for { // len(p) < n: avail < n, and checked after each read
		rest := n - len(p)
		if rest <= len(r.buf)/2 {
			// A small tail: read ahead through the buffer.
			if err := r.fill(rest, false); err != nil {
				return nil, err
			}
			if cap(p) < n {
				np := make([]byte, len(p), r.roundCap(n))
				copy(np, p)
				p = np
			}
			p = append(p, r.buf[r.lo:r.lo+rest]...)
			r.lo += rest
			break
		}
		if len(p) == cap(p) {
			np := payloadBuf(len(p), r.growCap(n, max(cap(p)*payloadGrowth, len(p)+payloadSlack)))
			copy(np, p)
			p = np
		}
		room := p[len(p):min(n, cap(p))] // never past this payload
		m, err := r.r.Read(room)
		if uint(m)-1 >= uint(len(room)) { // 0, negative or past the room
			m, err = r.readAgain(room, m, err)
		}
		p = p[:len(p)+m]
		if len(p) == n {
			break
		}
		if err != nil {
			return nil, r.readErr(err, false)
		}
	}
	return p, nil
}

// growCap is the capacity of a payload buffer allowed to grow to bound
// bytes: min(n, bound), rounded up to its pool class when it is the final
// size (so at most 1.25 × bound).
func (r *Reader) growCap(n, bound int) int {
	if bound < n {
		return bound
	}
	return r.roundCap(n)
}

// roundCap is the capacity of a buffer for a whole n-byte payload.
func (r *Reader) roundCap(n int) int {
	if r.pool == nil {
		return n
	}
	return poolRound(n)
}

// payloadBuf returns a payload buffer of length l and capacity c. One
// that payload bytes are read straight into starts HeaderSize bytes into
// a page, where a payload that follows its header from a page's start
// lies in a pipe's pages: the kernel's copy then runs at the same page
// offset on both sides. One whose direct reads landed 32 bytes before
// each page boundary instead made read(2) of a 1 MiB payload cost twice
// as much system time on AMD EPYC (measured, RATIONALE.md
// "rt/simpleremote"). Go allocates large objects page-aligned; where it
// did not, the buffer is used as allocated.
func payloadBuf(l, c int) []byte {
	if c < payloadAlignMin {
		return make([]byte, l, c)
	}
	b := make([]byte, c+HeaderSize)
	off := (HeaderSize - int(uintptr(unsafe.Pointer(unsafe.SliceData(b))))) & (pageSize - 1)
	if off > HeaderSize {
		off = 0
	}
	return b[off : off+l : off+c]
}

const (
	pageSize        = 4096
	payloadAlignMin = 64 << 10 // smaller payloads arrive through the read-ahead buffer
)
