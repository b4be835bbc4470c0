//go:build cgo

// Package wiretrace logs the SimpleRemoteEPC messages crossing a
// connection, for executor.Options.TraceWire.
package wiretrace

import (
	"encoding/hex"
	"io"
	"iter"
	"sync"

	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/sps"
)

// logConn wraps a connection and logs every SimpleRemoteEPC message that
// crosses it at debug level: direction, opcode, sequence number, tag (with
// its bootstrap name when it has one) and the payload's size and first
// bytes. It parses the byte streams itself, so it sees exactly what the
// wire carries. Used only with Options.TraceWire: it hides the
// raw descriptor, so the writer falls back to plain writes.
// Logger is what a traced connection logs to.
type Logger interface{ Debug(msg string, args ...any) }

type logConn struct {
	simpleremote.Conn
	in, out *frameTap
	log     Logger
}

// Conn returns c traced to log, tags named by the bootstrap symbols syms;
// of the names of an address (LLVM 23's aliases) the first in byte order,
// the LLVM 22 one.
func Conn(c simpleremote.Conn, log Logger, syms iter.Seq2[string, sps.Addr]) simpleremote.Conn {
	names := map[uint64]string{}
	for name, a := range syms {
		if old, ok := names[uint64(a)]; !ok || name < old {
			names[uint64(a)] = name
		}
	}
	return &logConn{
		Conn: c,
		in:   &frameTap{dir: "recv", log: log, names: names},
		out:  &frameTap{dir: "send", log: log, names: names},
		log:  log,
	}
}

func (c *logConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.in.feed(p[:n])
	if err == io.EOF {
		c.log.Debug("wire", "dir", "recv", "event", "end of input")
	}
	return n, err
}

func (c *logConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.out.feed(p[:n])
	return n, err
}

func (c *logConn) Close() error {
	c.log.Debug("wire", "event", "close")
	return c.Conn.Close()
}

// previewBytes is how much of each payload is logged.
const previewBytes = 32

// frameTap follows one direction of the byte stream.
type frameTap struct {
	mu      sync.Mutex
	dir     string
	log     Logger
	names   map[uint64]string
	hdr     [simpleremote.HeaderSize]byte
	nhdr    int
	h       simpleremote.Header
	left    uint64 // payload bytes still to skip
	preview []byte
}

func (t *frameTap) feed(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(p) > 0 {
		if t.nhdr < len(t.hdr) {
			k := copy(t.hdr[t.nhdr:], p)
			t.nhdr += k
			p = p[k:]
			if t.nhdr < len(t.hdr) {
				return
			}
			t.h = simpleremote.ParseHeader(t.hdr[:])
			t.left = t.h.PayloadLen()
			t.preview = t.preview[:0]
			if t.left == 0 {
				t.emit()
			}
			continue
		}
		k := uint64(len(p))
		if k > t.left {
			k = t.left
		}
		if room := previewBytes - len(t.preview); room > 0 {
			t.preview = append(t.preview, p[:min(uint64(room), k)]...)
		}
		t.left -= k
		p = p[k:]
		if t.left == 0 {
			t.emit()
		}
	}
}

func (t *frameTap) emit() {
	attrs := []any{"dir", t.dir, "op", t.h.Op.String(), "seq", t.h.SeqNo, "size", t.h.PayloadLen()}
	if t.h.Tag != 0 {
		attrs = append(attrs, "tag", uint64(t.h.Tag))
		if name, ok := t.names[uint64(t.h.Tag)]; ok {
			attrs = append(attrs, "fn", name)
		}
	}
	if len(t.preview) > 0 {
		attrs = append(attrs, "payload", hex.EncodeToString(t.preview))
	}
	t.log.Debug("wire", attrs...)
	t.nhdr = 0
}
