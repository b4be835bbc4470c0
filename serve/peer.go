//go:build cgo && linux

package serve

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/rt/simpleremote"
)

// peer is what the worker that accepts a controller (or the server, for
// a connection it accepts itself) knows of it before Setup: -1 where
// unknown.
type peer struct {
	network string // "unix" or "tcp"
	addr    string // the remote address ("@" for an unnamed Unix peer)
	uid     int
	gid     int      // primary group (Unix sockets only)
	groups  []uint32 // supplementary groups (Unix sockets only)
	pid     int      // Unix sockets only; a worker finds a TCP peer's
	remote  bool     // TCP from another host
}

// policy says who may connect: the serving uid, the uids and gids
// listed, and remote TCP peers only when allowed.
type policy struct {
	self        int
	uids, gids  []int
	allowRemote bool
}

// errRefused is the refusal every peer check wraps.
var errRefused = errors.New("refused")

// check identifies the peer of c and applies the policy; a refusal wraps
// errRefused and says why.
func (p policy) check(c net.Conn) (peer, error) {
	switch la := c.LocalAddr().(type) {
	case *net.UnixAddr:
		pr, err := unixPeer(c)
		if err != nil {
			return pr, err
		}
		return pr, p.allow(pr)
	case *net.TCPAddr:
		ra := c.RemoteAddr().(*net.TCPAddr)
		pr := peer{network: "tcp", addr: ra.String(), uid: -1, gid: -1, pid: -1}
		if !ra.IP.IsLoopback() {
			pr.remote = true
			if !p.allowRemote {
				return pr, fmt.Errorf("%w: %s is not a loopback peer (serve -allow-remote accepts it)", errRefused, pr.addr)
			}
			return pr, nil
		}
		uid, err := simpleremote.LoopbackPeerUID(la, ra)
		if err != nil {
			return pr, fmt.Errorf("%w: %s: owner unknown: %v", errRefused, pr.addr, err)
		}
		pr.uid = uid
		return pr, p.allow(pr)
	}
	return peer{addr: c.RemoteAddr().String(), uid: -1, gid: -1, pid: -1},
		fmt.Errorf("%w: %s: not a Unix or TCP connection", errRefused, c.RemoteAddr())
}

// allow applies the uid and gid lists to a local peer.
func (p policy) allow(pr peer) error {
	if pr.uid == p.self || slices.Contains(p.uids, pr.uid) {
		return nil
	}
	if pr.gid >= 0 && slices.Contains(p.gids, pr.gid) {
		return nil
	}
	for _, g := range pr.groups {
		if slices.Contains(p.gids, int(g)) {
			return nil
		}
	}
	return fmt.Errorf("%w: %s peer uid %d (gid %d) is not allowed (serve -allow-uid, -allow-gid)", errRefused, pr.network, pr.uid, pr.gid)
}

// unixPeer reads the peer's credentials (SO_PEERCRED, SO_PEERGROUPS).
func unixPeer(c net.Conn) (peer, error) {
	pr := unknownUnixPeer
	rc, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		return pr, fmt.Errorf("%w: %v", errRefused, err)
	}
	var perr error
	err = rc.Control(func(fd uintptr) { pr, perr = unixPeerFD(int(fd)) })
	if err != nil {
		return pr, fmt.Errorf("%w: %v", errRefused, err)
	}
	return pr, perr
}

// unknownUnixPeer is a Unix-domain peer before its credentials are read
// (an unnamed socket's address is "@").
var unknownUnixPeer = peer{network: "unix", addr: "@", uid: -1, gid: -1, pid: -1}

// unixPeerFD is unixPeer on the connection's descriptor.
func unixPeerFD(fd int) (peer, error) {
	pr := unknownUnixPeer
	if sa, err := unix.Getpeername(fd); err == nil {
		if u, ok := sa.(*unix.SockaddrUnix); ok && u.Name != "" {
			pr.addr = u.Name
		}
	}
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return pr, fmt.Errorf("%w: SO_PEERCRED: %v", errRefused, err)
	}
	pr.uid, pr.gid, pr.pid = int(cred.Uid), int(cred.Gid), int(cred.Pid)
	pr.groups = peerGroups(fd)
	return pr, nil
}

// peerGroups returns the peer's supplementary groups (SO_PEERGROUPS,
// Linux 4.13), or nil.
func peerGroups(fd int) []uint32 {
	buf := make([]uint32, 64)
	n := uint32(len(buf) * 4)
	_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.SOL_SOCKET, unix.SO_PEERGROUPS,
		uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&n)), 0)
	if e != 0 {
		return nil
	}
	return buf[:n/4]
}

// refusalKind is the kind a refusal is counted under in the status.
func refusalKind(err error) string {
	m := err.Error()
	switch {
	case strings.Contains(m, "not allowed"):
		return "uid"
	case strings.Contains(m, "loopback"):
		return "remote"
	case strings.Contains(m, "-max-sessions"):
		return "max-sessions"
	case strings.Contains(m, "draining"):
		return "draining"
	}
	return "other"
}
