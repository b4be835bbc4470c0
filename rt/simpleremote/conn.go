package simpleremote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// FileConn is a Conn over an input and an output file, possibly the same
// one: the pipes of `filedescs=IN,OUT` (what `llvm-jitlink
// -oop-executor=PATH` passes), or any pair of descriptors. Reads go to
// the input, writes to the output; SyscallConn exposes the output's raw
// descriptor for writev. Close shuts sockets down and closes the output
// first, then the input. Methods are safe for concurrent use as far as
// *os.File's are.
type FileConn struct {
	in, out *os.File
	spin    readSpinner
	once    sync.Once
	err     error
}

var _ Conn = (*FileConn)(nil)

// NewFileConn returns a FileConn over in and out (the same file for both
// directions is allowed); it takes ownership of both. For a local
// Disconnect to wake the reader the input must be pollable (os.Pipe's
// files are; see AdoptFDs for raw descriptors).
func NewFileConn(in, out *os.File) *FileConn {
	c := &FileConn{in: in, out: out}
	if rc, err := in.SyscallConn(); err == nil {
		c.spin.init(rc)
	}
	return c
}

// AdoptFDs takes over two inherited descriptors, as the stock executor's
// `filedescs=IN,OUT` does, and returns a FileConn over them. Each must be
// open; a negative or closed one gives the *UsageError
// "N is not a valid file descriptor". Both are made close-on-exec and
// non-blocking (RATIONALE.md, "rt/simpleremote"). IN and OUT may be equal.
// Linux only: elsewhere the error wraps [errors.ErrUnsupported].
func AdoptFDs(in, out int) (*FileConn, error) {
	return adoptFDs(in, out, strconv.Itoa(in), strconv.Itoa(out))
}

// In returns the input file.
func (c *FileConn) In() *os.File { return c.in }

// Out returns the output file.
func (c *FileConn) Out() *os.File { return c.out }

// Read reads from the input.
func (c *FileConn) Read(p []byte) (int, error) {
	if n, errno, ok := c.spin.read(p); ok {
		if errno != nil {
			return 0, &os.PathError{Op: "read", Path: c.in.Name(), Err: errno}
		}
		return n, nil
	}
	return c.in.Read(p)
}

// SetReadSpin sets how long a read polls the input before it sleeps, as
// Options.ReadSpin does; zero or negative never polls (the default).
func (c *FileConn) SetReadSpin(d time.Duration) { c.spin.set(d) }

// KernelReads reports that Read is read(2) on the input (see
// [KernelReader]).
func (c *FileConn) KernelReads() bool { return true }

// Write writes to the output.
func (c *FileConn) Write(p []byte) (int, error) { return c.out.Write(p) }

// SyscallConn returns the output's raw connection (for writev).
func (c *FileConn) SyscallConn() (syscall.RawConn, error) { return c.out.SyscallConn() }

// SetWriteDeadline sets the output's write deadline.
func (c *FileConn) SetWriteDeadline(t time.Time) error { return c.out.SetWriteDeadline(t) }

// Close shuts down and closes the output, then the input. It is
// idempotent; later calls return the first result.
func (c *FileConn) Close() error {
	c.once.Do(func() {
		if c.in == c.out {
			shutdownFile(c.out, shutRDWR)
			c.err = c.out.Close()
			return
		}
		shutdownFile(c.out, shutWR)
		shutdownFile(c.in, shutRD)
		errOut := c.out.Close()
		errIn := c.in.Close()
		c.err = errors.Join(errOut, errIn)
	})
	return c.err
}

// sockConn is an accepted TCP or Unix-domain connection: Close calls
// shutdown(SHUT_RDWR) before close, so the controller sees end-of-file
// even if a child process holds a duplicate of the descriptor. On TCP
// every read that returns data re-arms the immediate ACK (see
// quickAcker).
type sockConn struct {
	net.Conn
	sc   syscall.Conn
	ack  quickAcker
	spin readSpinner
	once sync.Once
	err  error
}

func (c *sockConn) Read(p []byte) (int, error) {
	n, err := c.read(p)
	if n > 0 {
		c.ack.rearm()
	}
	return n, err
}

func (c *sockConn) read(p []byte) (int, error) {
	if n, errno, ok := c.spin.read(p); ok {
		if errno != nil {
			return 0, &net.OpError{Op: "read", Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError("read", errno)}
		}
		return n, nil
	}
	return c.Conn.Read(p)
}

func (c *sockConn) SyscallConn() (syscall.RawConn, error) { return c.sc.SyscallConn() }

func (c *sockConn) SetReadSpin(d time.Duration) { c.spin.set(d) }

func (c *sockConn) KernelReads() bool { return true }

func (c *sockConn) Close() error {
	c.once.Do(func() {
		shutdownFile(c.sc, shutRDWR)
		c.err = c.Conn.Close()
	})
	return c.err
}

// Listener waits for the single controller connection of a `listen=` or
// `unix=` session.
type Listener struct {
	l    net.Listener
	unix bool
}

// LoopbackHost is the host `listen=:PORT` binds: orcrt never binds every
// interface unless asked to with an explicit 0.0.0.0 (or ::).
const LoopbackHost = "127.0.0.1"

// ListenTCP listens on host:port; an empty host means LoopbackHost, never
// every interface (RATIONALE.md, "rt/simpleremote"). Port "0" picks a
// free port; see Addr. The socket is close-on-exec.
func ListenTCP(host, port string) (*Listener, error) {
	if host == "" {
		host = LoopbackHost
	}
	l, err := NetListenTCP(context.Background(), host, port)
	if err != nil {
		return nil, err
	}
	return &Listener{l: l}, nil
}

// NetListenTCP listens on host:port as net.Listen("tcp", ...) does, for
// callers that accept many connections (orcrt-executor serve), without
// linking package net's resolver: names go to libc's getaddrinfo in cgo
// builds on Linux, IPv4 addresses first. An empty host means
// LoopbackHost. The socket is close-on-exec.
func NetListenTCP(ctx context.Context, host, port string) (net.Listener, error) {
	if host == "" {
		host = LoopbackHost
	}
	l, err := listenTCP(ctx, host, port)
	if err != nil {
		return nil, fmt.Errorf("simpleremote: listen: %w", err)
	}
	return l, nil
}

// ListenUnix listens on a Unix-domain stream socket at path, made
// accessible to its owner only (the peer can run code in this process).
// The socket file is removed when the listener closes, which Accept does
// as soon as the connection is accepted (or fails). An existing file at
// path is an error, never removed.
func ListenUnix(path string) (*Listener, error) {
	if path == "" {
		return nil, errors.New("simpleremote: listen unix: empty socket path")
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("simpleremote: listen: %w", err)
	}
	l.SetUnlinkOnClose(true)
	if err := os.Chmod(path, 0o600); err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("simpleremote: listen unix %s: %w", path, err)
	}
	return &Listener{l: l, unix: true}, nil
}

// Addr returns the listening address (useful with port 0).
func (l *Listener) Addr() net.Addr { return l.l.Addr() }

// Close stops listening (and removes a Unix socket file). Idempotent.
func (l *Listener) Close() error {
	err := l.l.Close()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// Accept waits for one connection (or ctx's end), then closes the
// listener in every case — only one session per process, so a second
// connection is refused. TCP connections get TCP_NODELAY (every message
// is one write, so Nagle's algorithm would only add delay) and, on Linux,
// acknowledge what they read at once: LLVM's controllers write a
// message's header and payload in two writes with Nagle on, so the
// payload waits for the ACK of the header, which delayed ACK holds back
// for some 40 ms. The returned Conn shuts the socket down before closing
// it.
func (l *Listener) Accept(ctx context.Context) (Conn, error) {
	stop := context.AfterFunc(ctx, func() { _ = l.l.Close() })
	c, err := l.l.Accept()
	stop()
	_ = l.Close()
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("simpleremote: accept: %w", ctx.Err())
		}
		return nil, fmt.Errorf("simpleremote: accept: %w", err)
	}
	return wrapSock(c, "accept")
}

// wrapSock makes c, a connected TCP or Unix-domain socket, a Conn; op
// names the caller in errors. It closes c on error.
func wrapSock(c net.Conn, op string) (Conn, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		_ = c.Close()
		return nil, fmt.Errorf("simpleremote: %s: %T has no raw descriptor", op, c)
	}
	conn := &sockConn{Conn: c, sc: sc}
	if rc, err := sc.SyscallConn(); err == nil {
		conn.spin.init(rc)
	}
	if tc, ok := c.(*net.TCPConn); ok {
		if err := tc.SetNoDelay(true); err != nil {
			_ = c.Close()
			return nil, fmt.Errorf("simpleremote: %s: TCP_NODELAY: %w", op, err)
		}
		if err := conn.ack.init(sc); err != nil {
			_ = c.Close()
			return nil, fmt.Errorf("simpleremote: %s: TCP_QUICKACK: %w", op, err)
		}
	}
	return conn, nil
}

// AdoptSocket takes over fd, a connected TCP or Unix-domain stream
// socket (`socket:adopt=FD`, or a connection orcrt-executor serve hands
// its worker), as Accept's Conn: TCP_NODELAY and quick ACKs on TCP, and
// a shutdown before close. fd is closed (the Conn holds a duplicate).
func AdoptSocket(fd int) (Conn, error) {
	f := os.NewFile(uintptr(fd), "simpleremote-socket")
	c, err := net.FileConn(f)
	_ = f.Close()
	if err != nil {
		return nil, fmt.Errorf("simpleremote: adopting socket %d: %w", fd, err)
	}
	return wrapSock(c, "adopting socket "+strconv.Itoa(fd))
}

// DialTCP connects to a controller listening on host:port
// (`tcp:connect=`; an empty host is LoopbackHost).
func DialTCP(ctx context.Context, host, port string) (Conn, error) {
	if host == "" {
		host = LoopbackHost
	}
	c, err := dialTCP(ctx, host, port)
	if err != nil {
		return nil, fmt.Errorf("simpleremote: connect: %w", err)
	}
	return wrapSock(c, "connect")
}
