package wiretest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/simpleremote"
)

// Transport names a kind of connection for in-process tests and
// benchmarks.
type Transport string

// Transports.
const (
	// Pipe is two OS pipes, as `llvm-jitlink -oop-executor` gives its
	// executor.
	Pipe Transport = "pipe"
	// Unix is a Unix-domain stream socket (simpleremote.ListenUnix).
	Unix Transport = "unix"
	// TCP is a loopback TCP connection (simpleremote.ListenTCP).
	TCP Transport = "tcp"
	// TCPNagle is TCP with the controller's side as LLVM's controllers
	// leave it: Nagle's algorithm on, and each message written as its
	// header and then its payload, two writes. Not in Transports.
	TCPNagle Transport = "tcp-nagle"
	// Mem is net.Pipe: in memory, synchronous, without a descriptor (the
	// writers' fallback path).
	Mem Transport = "mem"
)

// Transports lists every Transport.
var Transports = []Transport{Pipe, Unix, TCP, Mem}

// PipeConn is the controller's end of a two-pipe connection: it reads
// from R (the executor's output) and writes to W (the executor's
// input). CloseWrite closes W only, as llvm-jitlink ends a session.
type PipeConn struct {
	R, W *os.File

	wOnce, rOnce sync.Once
	wErr, rErr   error
}

// Read reads from R.
func (p *PipeConn) Read(b []byte) (int, error) { return p.R.Read(b) }

// Write writes to W.
func (p *PipeConn) Write(b []byte) (int, error) { return p.W.Write(b) }

// SyscallConn returns W's raw connection (for writev).
func (p *PipeConn) SyscallConn() (syscall.RawConn, error) { return p.W.SyscallConn() }

// CloseWrite closes W: the executor reads end-of-file.
func (p *PipeConn) CloseWrite() error {
	p.wOnce.Do(func() { p.wErr = p.W.Close() })
	return p.wErr
}

// CloseRead closes R: the executor's writes fail with EPIPE.
func (p *PipeConn) CloseRead() error {
	p.rOnce.Do(func() { p.rErr = p.R.Close() })
	return p.rErr
}

// Close closes both pipes.
func (p *PipeConn) Close() error { return errors.Join(p.CloseWrite(), p.CloseRead()) }

// Connect returns the two ends of a new connection over t: the
// executor's (for simpleremote.New) and the controller's (for New).
func Connect(t Transport) (simpleremote.Conn, io.ReadWriteCloser, error) {
	switch t {
	case Pipe:
		toR, toW, err := os.Pipe()
		if err != nil {
			return nil, nil, fmt.Errorf("wiretest: pipe: %w", err)
		}
		fromR, fromW, err := os.Pipe()
		if err != nil {
			_, _ = toR.Close(), toW.Close()
			return nil, nil, fmt.Errorf("wiretest: pipe: %w", err)
		}
		return simpleremote.NewFileConn(toR, fromW), &PipeConn{R: fromR, W: toW}, nil
	case Unix:
		dir, err := os.MkdirTemp("", "wiretest-")
		if err != nil {
			return nil, nil, fmt.Errorf("wiretest: %w", err)
		}
		defer os.RemoveAll(dir)
		l, err := simpleremote.ListenUnix(filepath.Join(dir, "s"))
		if err != nil {
			return nil, nil, err
		}
		return dialAccept(l, "unix")
	case TCP:
		l, err := simpleremote.ListenTCP("127.0.0.1", "0")
		if err != nil {
			return nil, nil, err
		}
		return dialAccept(l, "tcp")
	case TCPNagle:
		l, err := simpleremote.ListenTCP("127.0.0.1", "0")
		if err != nil {
			return nil, nil, err
		}
		ex, ctl, err := dialAccept(l, "tcp")
		if err != nil {
			return nil, nil, err
		}
		_ = ctl.(*net.TCPConn).SetNoDelay(false)
		return ex, headerFirstConn{ctl.(*net.TCPConn)}, nil
	case Mem:
		a, b := net.Pipe()
		return a, b, nil
	}
	return nil, nil, fmt.Errorf("wiretest: unknown transport %q", t)
}

func dialAccept(l *simpleremote.Listener, network string) (simpleremote.Conn, io.ReadWriteCloser, error) {
	ctl, err := net.Dial(network, l.Addr().String())
	if err != nil {
		_ = l.Close()
		return nil, nil, fmt.Errorf("wiretest: dial: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ex, err := l.Accept(ctx)
	if err != nil {
		_ = ctl.Close()
		return nil, nil, err
	}
	if tc, ok := ctl.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	return ex, ctl, nil
}

// Attach connects s to a new Controller over a fresh connection of kind
// t: it wraps the executor's end in a simpleremote CA (caOpts may be nil),
// attaches it to s with bi — Connect sends Setup — and receives the Setup
// on the controller's end (opts may be nil). The Session must use a
// dispatcher that runs calls off the reader goroutine (rt.GoRunner).
func Attach(s *rt.Session, bi *rt.BootstrapInfo, t Transport, caOpts *simpleremote.Options, opts *Options) (*Controller, *simpleremote.CA, error) {
	ex, ctlEnd, err := Connect(t)
	if err != nil {
		return nil, nil, err
	}
	ca := simpleremote.New(ex, caOpts)
	errc := make(chan error, 1)
	go func() { errc <- s.Attach(ca, bi) }() // net.Pipe: Setup blocks until read
	ctl, cerr := New(ctlEnd, opts)
	if aerr := <-errc; aerr != nil {
		if ctl != nil {
			_ = ctl.Close()
		}
		return nil, nil, fmt.Errorf("wiretest: attach: %w", aerr)
	}
	if cerr != nil {
		return nil, nil, cerr // ctlEnd is closed: the CA reads end-of-file and ends
	}
	return ctl, ca, nil
}

// headerFirstConn writes every message as LLVM's FDSimpleRemoteEPCTransport
// does: the header, then the payload, in two writes. It hides the
// socket's SyscallConn so that a Writer writes through Write.
type headerFirstConn struct{ c *net.TCPConn }

func (h headerFirstConn) Read(b []byte) (int, error) { return h.c.Read(b) }
func (h headerFirstConn) Close() error               { return h.c.Close() }

func (h headerFirstConn) Write(b []byte) (int, error) {
	if len(b) <= simpleremote.HeaderSize {
		return h.c.Write(b)
	}
	n, err := h.c.Write(b[:simpleremote.HeaderSize])
	if err != nil {
		return n, err
	}
	m, err := h.c.Write(b[simpleremote.HeaderSize:])
	return n + m, err
}
