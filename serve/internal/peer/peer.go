//go:build cgo && linux

package peer

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

// Peer is what the worker that accepts a controller (or the server, for
// a connection it accepts itself) knows of it before Setup: -1 where
// unknown.
type Peer struct {
	Network string // "unix" or "tcp"
	Addr    string // the remote address ("@" for an unnamed Unix peer)
	UID     int
	GID     int      // primary group (Unix sockets only)
	Groups  []uint32 // supplementary groups (Unix sockets only)
	PID     int      // Unix sockets only; a worker finds a TCP peer's
	Remote  bool     // TCP from another host
}

// Unknown is a peer nothing is known of (a connection the server
// handed over, as its worker sees it).
var Unknown = Peer{UID: -1, GID: -1, PID: -1}

// Policy says who may connect: the serving uid, the uids and gids
// listed, and remote TCP peers only when allowed.
type Policy struct {
	Self        int
	UIDs, GIDs  []int
	AllowRemote bool
}

// ErrRefused is the refusal every peer check wraps.
var ErrRefused = errors.New("refused")

// Check identifies the peer of c and applies the policy; a refusal wraps
// ErrRefused and says why.
func (p Policy) Check(c net.Conn) (Peer, error) {
	switch la := c.LocalAddr().(type) {
	case *net.UnixAddr:
		pr, err := Unix(c)
		if err != nil {
			return pr, err
		}
		return pr, p.Allow(pr)
	case *net.TCPAddr:
		ra := c.RemoteAddr().(*net.TCPAddr)
		pr := Peer{Network: "tcp", Addr: ra.String(), UID: -1, GID: -1, PID: -1}
		if !ra.IP.IsLoopback() {
			pr.Remote = true
			if !p.AllowRemote {
				return pr, fmt.Errorf("%w: %s is not a loopback peer (serve -allow-remote accepts it)", ErrRefused, pr.Addr)
			}
			return pr, nil
		}
		uid, err := simpleremote.LoopbackPeerUID(la, ra)
		if err != nil {
			return pr, fmt.Errorf("%w: %s: owner unknown: %v", ErrRefused, pr.Addr, err)
		}
		pr.UID = uid
		return pr, p.Allow(pr)
	}
	return Peer{Addr: c.RemoteAddr().String(), UID: -1, GID: -1, PID: -1},
		fmt.Errorf("%w: %s: not a Unix or TCP connection", ErrRefused, c.RemoteAddr())
}

// Allow applies the uid and gid lists to a local peer.
func (p Policy) Allow(pr Peer) error {
	if pr.UID == p.Self || slices.Contains(p.UIDs, pr.UID) {
		return nil
	}
	if pr.GID >= 0 && slices.Contains(p.GIDs, pr.GID) {
		return nil
	}
	for _, g := range pr.Groups {
		if slices.Contains(p.GIDs, int(g)) {
			return nil
		}
	}
	return fmt.Errorf("%w: %s peer uid %d (gid %d) is not allowed (serve -allow-uid, -allow-gid)", ErrRefused, pr.Network, pr.UID, pr.GID)
}

// Unix reads the peer's credentials (SO_PEERCRED, SO_PEERGROUPS).
func Unix(c net.Conn) (Peer, error) {
	pr := unknownUnixPeer
	rc, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		return pr, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	var perr error
	err = rc.Control(func(fd uintptr) { pr, perr = UnixFD(int(fd)) })
	if err != nil {
		return pr, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	return pr, perr
}

// unknownUnixPeer is a Unix-domain peer before its credentials are read
// (an unnamed socket's address is "@").
var unknownUnixPeer = Peer{Network: "unix", Addr: "@", UID: -1, GID: -1, PID: -1}

// UnixFD is Unix on the connection's descriptor.
func UnixFD(fd int) (Peer, error) {
	pr := unknownUnixPeer
	if sa, err := unix.Getpeername(fd); err == nil {
		if u, ok := sa.(*unix.SockaddrUnix); ok && u.Name != "" {
			pr.Addr = u.Name
		}
	}
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return pr, fmt.Errorf("%w: SO_PEERCRED: %v", ErrRefused, err)
	}
	pr.UID, pr.GID, pr.PID = int(cred.Uid), int(cred.Gid), int(cred.Pid)
	pr.Groups = peerGroups(fd)
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

// Kind is the kind a refusal is counted under in the status.
func Kind(err error) string {
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
