//go:build cgo && linux

package worker

import (
	"net"
	"os"

	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/serve/internal/peer"
)

// warmUp takes, before the worker reports ready, the path a connection
// takes from accept to the Setup write, once for each family of its
// listening sockets, on a connection to itself: adoption, the peer check,
// the CA, the Setup encoding and its writev. Run cold, after accept, that
// path spent most of its 0.25 ms in first uses (itabs built, code and
// data pages faulted in), not in its work. Failures only leave it cold.
func warmUp(ex *executor.Executor, wo *simpleremote.Options, listeners []int, pol peer.Policy) {
	seen := map[int]bool{}
	for _, l := range listeners {
		fam, err := unix.GetsockoptInt(l, unix.SOL_SOCKET, unix.SO_DOMAIN)
		if err != nil || seen[fam] {
			continue
		}
		seen[fam] = true
		ours, theirs, err := selfPair(fam)
		if err != nil {
			continue
		}
		warmConn(ours, fam, ex, wo, pol)
		_ = unix.Close(theirs)
	}
}

// warmConn serves fd, a connection of family fam, as the worker would
// one it accepted, up to the Setup write, then closes it; ex's Session
// is not attached.
func warmConn(fd, fam int, ex *executor.Executor, wo *simpleremote.Options, pol peer.Policy) {
	var conn simpleremote.Conn
	if fam == unix.AF_UNIX {
		if err := unix.SetNonblock(fd, true); err != nil {
			_ = unix.Close(fd)
			return
		}
		if pr, err := peer.UnixFD(fd); err == nil {
			_ = pol.Allow(pr)
		}
		f := os.NewFile(uintptr(fd), "unix-socket")
		conn = simpleremote.NewFileConn(f, f)
	} else {
		var err error
		if conn, err = simpleremote.AdoptSocket(fd); err != nil {
			return
		}
		if nc, ok := conn.(net.Conn); ok {
			_, _ = pol.Check(nc)
		}
	}
	defer conn.Close()
	sc := &sessionConn{Conn: conn}
	_ = simpleremote.New(sc, wo)
	_ = simpleremote.NewWriter(sc).WriteMsg(simpleremote.OpSetup, 0, 0, ex.BootstrapInfo().SetupPayload())
}

// selfPair returns the two ends of a connection of family fam: for
// AF_UNIX a socket pair, for AF_INET and AF_INET6 a loopback connection
// accepted from a listener of its own. ours is the accepted end.
func selfPair(fam int) (ours, theirs int, err error) {
	if fam == unix.AF_UNIX {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return -1, -1, err
		}
		return fds[0], fds[1], nil
	}
	var sa unix.Sockaddr
	switch fam {
	case unix.AF_INET:
		sa = &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
	case unix.AF_INET6:
		sa = &unix.SockaddrInet6{Addr: [16]byte{15: 1}}
	default:
		return -1, -1, unix.EAFNOSUPPORT
	}
	l, err := unix.Socket(fam, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, -1, err
	}
	defer unix.Close(l)
	if err := unix.Bind(l, sa); err != nil {
		return -1, -1, err
	}
	if err := unix.Listen(l, 1); err != nil {
		return -1, -1, err
	}
	if sa, err = unix.Getsockname(l); err != nil {
		return -1, -1, err
	}
	if theirs, err = unix.Socket(fam, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0); err != nil {
		return -1, -1, err
	}
	if err := unix.Connect(theirs, sa); err != nil {
		_ = unix.Close(theirs)
		return -1, -1, err
	}
	if ours, _, err = unix.Accept4(l, unix.SOCK_CLOEXEC); err != nil {
		_ = unix.Close(theirs)
		return -1, -1, err
	}
	return ours, theirs, nil
}
