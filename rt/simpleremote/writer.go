package simpleremote

import (
	"errors"
	"io"
	"sync"
	"syscall"

	"github.com/orcgo/orcrt/sps"
)

// coalesceMax is the largest message the fallback path copies into one
// buffer for a single Write.
const coalesceMax = 64 << 10

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, coalesceMax); return &b }}

// Writer sends whole messages, each in one system call where it can
// (writev on a syscall.Conn; one Write of a copy up to 64 KiB otherwise).
// It is safe for concurrent use: messages never interleave. A failed
// write's error is sticky.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	rc  syscall.RawConn // nil: no raw descriptor
	hdr [HeaderSize]byte
	vec vecState // platform writev state
	err error
	// sealed: WriteLast ran. Checked under mu, so nothing a racing
	// sender writes can follow the last message.
	sealed bool
}

// NewWriter returns a Writer over w.
func NewWriter(w io.Writer) *Writer {
	wr := &Writer{w: w}
	if sc, ok := w.(syscall.Conn); ok && writevSupported {
		if rc, err := sc.SyscallConn(); err == nil {
			wr.rc = rc
		}
	}
	return wr
}

// ErrWriterSealed refuses a message once WriteLast has run: the peer was
// told nothing follows. It is not an *IOError and ends nothing by itself.
var ErrWriterSealed = errors.New("simpleremote: message after the last one")

// Vectored reports whether messages go out with writev on a raw
// descriptor.
func (w *Writer) Vectored() bool { return w.rc != nil }

// WriteMsg sends one message with a header built from op, seq, tag and
// len(payload). Failures are *IOError (sticky), or ErrWriterSealed after
// WriteLast.
func (w *Writer) WriteMsg(op Opcode, seq uint64, tag sps.Addr, payload []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writeMsgLocked(op, seq, tag, payload)
}

// WriteLast sends one message like WriteMsg and refuses every later one
// with ErrWriterSealed, whether or not this one got out.
func (w *Writer) WriteLast(op Opcode, seq uint64, tag sps.Addr, payload []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.writeMsgLocked(op, seq, tag, payload)
	w.sealed = true
	return err
}

// writeMsgLocked is WriteMsg with w.mu held.
func (w *Writer) writeMsgLocked(op Opcode, seq uint64, tag sps.Addr, payload []byte) error {
	if w.sealed {
		return ErrWriterSealed
	}
	if w.err != nil {
		return w.err
	}
	PutHeader(w.hdr[:], Header{Size: HeaderSize + uint64(len(payload)), Op: op, SeqNo: seq, Tag: tag})
	var err error
	if w.rc != nil {
		err = w.writev(w.hdr[:], payload)
	} else {
		err = w.writeCoalesced(w.hdr[:], payload)
	}
	if err != nil {
		w.err = &IOError{Op: "write", Err: err}
	}
	return w.err
}

// WriteRaw writes b as is, as one message-sized unit under the mutex:
// for test controllers that send malformed frames.
func (w *Writer) WriteRaw(b []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sealed {
		return ErrWriterSealed
	}
	if w.err != nil {
		return w.err
	}
	var err error
	if w.rc != nil {
		err = w.writev(b, nil)
	} else {
		err = writeFull(w.w, b)
	}
	if err != nil {
		w.err = &IOError{Op: "write", Err: err}
	}
	return w.err
}

func (w *Writer) writeCoalesced(hdr, payload []byte) error {
	total := len(hdr) + len(payload)
	if total > coalesceMax {
		if err := writeFull(w.w, hdr); err != nil {
			return err
		}
		return writeFull(w.w, payload)
	}
	bp := bufPool.Get().(*[]byte)
	b := append(append((*bp)[:0], hdr...), payload...)
	err := writeFull(w.w, b)
	*bp = b[:0]
	bufPool.Put(bp)
	return err
}

// writeFull writes all of b, also retrying short writes without error.
func writeFull(w io.Writer, b []byte) error {
	for len(b) > 0 {
		n, err := w.Write(b)
		if n < 0 || n > len(b) {
			return errors.New("simpleremote: writer returned an invalid count")
		}
		b = b[n:]
		if err != nil {
			return err
		}
		if n == 0 {
			return io.ErrShortWrite
		}
	}
	return nil
}
