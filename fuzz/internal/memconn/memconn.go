package memconn

import (
	"bytes"
	"io"
	"net"
	"sync"
)

var chunkSizes = [8]int{1, 7, 32, 33, 100, 4096, 65536, 1 << 20}

// Mode is how a Conn serves one input, decoded from its first byte.
type Mode struct {
	Chunk  int  // bytes per Read: one of 1, 7, 32, 33, 100, 4096, 64 KiB, 1 MiB (bits 0-2)
	Hold   bool // at the end of input, stay silent instead of EOF (bit 7): the executor must disconnect locally
	Detach bool // disconnect locally right away, racing the input (bit 6)
	// Concurrent: run the executor's calls concurrently rather than one
	// at a time in order (bit 3; for harnesses that choose a dispatcher).
	Concurrent bool
}

// ParseMode decodes the mode byte; every byte is a valid mode.
func ParseMode(b byte) Mode {
	return Mode{Chunk: chunkSizes[b&7], Hold: b&0x80 != 0, Detach: b&0x40 != 0, Concurrent: b&0x08 != 0}
}

// Conn is the executor's end of an in-memory connection: Read serves the
// input in chunks, Write collects the output.
type Conn struct {
	in      []byte
	chunk   int
	hold    bool
	drained chan struct{}
	closed  chan struct{}
	wrote   chan struct{} // a token after each Write
	once    sync.Once
	dOnce   sync.Once

	mu  sync.Mutex
	out bytes.Buffer
}

// New returns a Conn serving in as m says. It does not copy in.
func New(in []byte, m Mode) *Conn {
	return &Conn{in: in, chunk: max(m.Chunk, 1), hold: m.Hold, drained: make(chan struct{}), closed: make(chan struct{}), wrote: make(chan struct{}, 1)}
}

// Read serves the next chunk of input; at its end io.EOF, or in hold mode
// nothing until Close (then net.ErrClosed).
func (c *Conn) Read(p []byte) (int, error) {
	select {
	case <-c.closed:
		return 0, net.ErrClosed
	default:
	}
	if len(c.in) == 0 {
		if !c.hold {
			return 0, io.EOF
		}
		c.dOnce.Do(func() { close(c.drained) })
		<-c.closed
		return 0, net.ErrClosed
	}
	n := copy(p[:min(len(p), c.chunk)], c.in)
	c.in = c.in[n:]
	return n, nil
}

// Write appends p to the output, or fails with net.ErrClosed after Close.
func (c *Conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.closed:
		return 0, net.ErrClosed
	default:
	}
	n, err := c.out.Write(p)
	select {
	case c.wrote <- struct{}{}:
	default:
	}
	return n, err
}

// Wrote receives a token after Writes: a waiter for output checks it,
// then waits here instead of polling.
func (c *Conn) Wrote() <-chan struct{} { return c.wrote }

// Close ends the connection; it is idempotent.
func (c *Conn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// Drained is closed when a hold-mode Conn has served all its input.
func (c *Conn) Drained() <-chan struct{} { return c.drained }

// Output returns a copy of everything written so far.
func (c *Conn) Output() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.out.Bytes())
}
