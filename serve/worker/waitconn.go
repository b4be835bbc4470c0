//go:build cgo && linux

package worker

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/serve/internal/peer"
	"github.com/orcgo/orcrt/serve/internal/wire"
)

// accepted is a worker's one connection.
type accepted struct {
	conn   simpleremote.Conn
	peer   peer.Peer // the worker's own check (handed: unknown, network "")
	id     uint64
	start  time.Time
	handed bool // by the server, with the session id
}

// connWait is an idle worker's wait for its connection: one epoll set
// holds the control socket and, once the server arms the worker
// (wire.MsgAccept), the listening sockets, each with EPOLLEXCLUSIVE so that a
// connection wakes one waiting worker, not all of them. accept4 on the
// shared non-blocking sockets decides who takes it: EAGAIN means
// another worker did.
type connWait struct {
	ctl   wire.Ctl
	ep    int
	ls    []int  // listening sockets; -1 once dropped
	unix  []bool // ls[i] is a Unix-domain socket
	pol   peer.Policy
	armed bool
}

func newConnWait(ctl wire.Ctl, first, n int, pol peer.Policy) (*connWait, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll: %w", err)
	}
	w := &connWait{ctl: ctl, ep: ep, pol: pol}
	for i := range n {
		fam, _ := unix.GetsockoptInt(first+i, unix.SOL_SOCKET, unix.SO_DOMAIN)
		w.ls = append(w.ls, first+i)
		w.unix = append(w.unix, fam == unix.AF_UNIX)
	}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, int(ctl), &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(ctl)}); err != nil {
		_ = unix.Close(ep)
		return nil, fmt.Errorf("epoll: control socket: %w", err)
	}
	return w, nil
}

// arm adds the listening sockets to the set.
func (w *connWait) arm() error {
	if w.armed {
		return nil
	}
	w.armed = true
	for _, fd := range w.ls {
		if fd < 0 {
			continue
		}
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLEXCLUSIVE, Fd: int32(fd)}
		err := unix.EpollCtl(w.ep, unix.EPOLL_CTL_ADD, fd, &ev)
		if errors.Is(err, unix.EINVAL) { // before Linux 4.5: every waiter wakes, one accepts
			ev.Events = unix.EPOLLIN
			err = unix.EpollCtl(w.ep, unix.EPOLL_CTL_ADD, fd, &ev)
		}
		if err != nil {
			return fmt.Errorf("epoll: listening socket %d: %w", fd, err)
		}
	}
	return nil
}

// drop stops waiting on listening socket i and closes it (serve shut it
// down: draining).
func (w *connWait) drop(i int) {
	if w.armed {
		_ = unix.EpollCtl(w.ep, unix.EPOLL_CTL_DEL, w.ls[i], nil)
	}
	_ = unix.Close(w.ls[i])
	w.ls[i] = -1
}

// close closes the listening sockets and the epoll set.
func (w *connWait) close() {
	for i, fd := range w.ls {
		if fd >= 0 {
			_ = unix.Close(fd)
			w.ls[i] = -1
		}
	}
	if w.ep >= 0 {
		_ = unix.Close(w.ep)
		w.ep = -1
	}
}

// wait returns the worker's connection: one it accepted whose peer the
// policy allows, or one the server handed over; nil when the server lets
// the worker go. A refused peer is reported to the server, closed, and
// the wait goes on.
func (w *connWait) wait() (*accepted, error) {
	var evs [8]unix.EpollEvent
	for {
		n, err := unix.EpollWait(w.ep, evs[:], -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("epoll_wait: %w", err)
		}
		if slices.ContainsFunc(evs[:n], func(ev unix.EpollEvent) bool { return ev.Fd == int32(w.ctl) }) {
			// The server first: being let go (draining) wins over a
			// connection, which another worker or the server may take
			// (level-triggered, it is reported again).
			acc, done, err := w.control()
			if done || err != nil {
				return acc, err
			}
			continue
		}
		for _, ev := range evs[:n] {
			if acc := w.accept(int(ev.Fd), ev.Events); acc != nil {
				return acc, nil
			}
		}
	}
}

// control reads one message from the server: done with nil when the
// server closed the socket, with a connection for "session"; "accept"
// arms the worker.
func (w *connWait) control() (acc *accepted, done bool, err error) {
	msg, fds, err := w.ctl.Recv()
	if errors.Is(err, unix.EAGAIN) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	kind, rest, _ := wire.CutField(msg)
	switch {
	case msg == "" && len(fds) == 0:
		return nil, true, nil
	case kind == wire.MsgAccept && len(fds) == 0:
		return nil, false, w.arm()
	case kind == wire.MsgSession && len(fds) == 1:
		id, perr := strconv.ParseUint(rest, 10, 64)
		if perr != nil {
			break
		}
		conn, err := simpleremote.AdoptSocket(fds[0])
		if err != nil {
			return nil, true, fmt.Errorf("session %d: %w", id, err)
		}
		return &accepted{conn: conn, peer: peer.Unknown, id: id, start: time.Now(), handed: true}, true, nil
	}
	for _, fd := range fds {
		_ = unix.Close(fd)
	}
	return nil, true, fmt.Errorf("control socket: unexpected message %q with %d descriptors", msg, len(fds))
}

// accept takes a connection from listening socket fd if one is there
// and checks its peer: the connection if allowed, else nil.
func (w *connWait) accept(fd int, events uint32) *accepted {
	i := slices.Index(w.ls, fd)
	if i < 0 {
		return nil
	}
	if events&(unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		w.drop(i) // shut down: the server is draining
		return nil
	}
	// A Unix-domain connection becomes an *os.File in Go's poller
	// (non-blocking); a TCP one goes through AdoptSocket, whose
	// os.NewFile needs it blocking to keep it out (Linux's accept4 does
	// not copy the listener's O_NONBLOCK).
	isUnix := w.unix[i]
	flags := unix.SOCK_CLOEXEC
	if isUnix {
		flags |= unix.SOCK_NONBLOCK
	}
	nfd, _, err := unix.Accept4(fd, flags)
	switch {
	case err == nil:
	case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EINTR), errors.Is(err, unix.ECONNABORTED):
		return nil // another worker took it, or it went away
	case errors.Is(err, unix.EMFILE), errors.Is(err, unix.ENFILE), errors.Is(err, unix.ENOBUFS), errors.Is(err, unix.ENOMEM):
		time.Sleep(50 * time.Millisecond)
		return nil
	default:
		w.drop(i) // not listening any more
		return nil
	}
	start := time.Now()
	if isUnix {
		return w.acceptUnix(nfd, start)
	}
	conn, err := simpleremote.AdoptSocket(nfd)
	if err != nil {
		fmt.Fprintf(os.Stderr, "orcrt-executor: serve worker: %v\n", err)
		return nil
	}
	nc, ok := conn.(net.Conn)
	if !ok {
		_ = conn.Close()
		return nil
	}
	pr, err := w.pol.Check(nc)
	if err != nil {
		w.refuse(pr, err, conn.Close)
		return nil
	}
	return &accepted{conn: conn, peer: pr, start: start}
}

// acceptUnix checks the peer of fd, an accepted Unix-domain connection,
// and makes it the session's connection: a FileConn on one non-blocking
// file, which shuts the socket down on Close as AdoptSocket's does,
// without net.FileConn's duplicate descriptor and address look-ups (40
// of the 175 microseconds from accept to Setup).
func (w *connWait) acceptUnix(fd int, start time.Time) *accepted {
	pr, err := peer.UnixFD(fd)
	if err == nil {
		err = w.pol.Allow(pr)
	}
	if err != nil {
		w.refuse(pr, err, func() error { return unix.Close(fd) })
		return nil
	}
	f := os.NewFile(uintptr(fd), "unix-socket")
	return &accepted{conn: simpleremote.NewFileConn(f, f), peer: pr, start: start}
}

// refuse reports a peer the policy turned away, then closes its
// connection: the server has counted the refusal by the time the peer
// sees its end of file.
func (w *connWait) refuse(pr peer.Peer, why error, closeConn func() error) {
	_ = w.ctl.SendMsg(wire.Refused{Kind: peer.Kind(why), Network: pr.Network, Addr: pr.Addr, UID: pr.UID, PID: pr.PID, Why: why.Error()}.Encode())
	_ = closeConn()
}
